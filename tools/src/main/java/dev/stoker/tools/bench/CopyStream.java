package dev.stoker.tools.bench;

import static dev.stoker.tools.bench.ReferenceWorkloads.IMAGE_BYTES;
import static dev.stoker.tools.bench.ReferenceWorkloads.MAX_CHUNK_ROWS;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;
import dev.stoker.loader.sampler.Permutations;

/**
 * The {@code stream} workload: the {@code copy} workload's data (the same images and labels for the
 * same seed), held off-heap as two columns and streamed in chunks of {@code chunkRows} rows (the
 * last one shorter), each chunk a {@link ColumnChunk#ofBuffers} over views of the data, so the
 * loader's copy into the batch is the only one. Chunks, and their views, are made once.
 *
 * <p>An epoch streams every sample once: chunk after chunk in order, or with {@code shuffle} the
 * chunks in the order {@code Permutations.permutation(chunks, seed, epoch)}, rows in order within a
 * chunk. It serves one rank ({@code worldSize = 1}).
 */
final class CopyStream implements Workload, StreamedDataset {
  private final DirectSamples images;
  private final DirectSamples labels;
  private final int chunkRows;
  private final ColumnChunk[] chunks;

  CopyStream(int samples, long seed, int chunkRows) {
    ReferenceWorkloads.checkSamples(samples);
    if (chunkRows <= 0 || chunkRows > MAX_CHUNK_ROWS) {
      throw new IllegalArgumentException(
          "chunkRows: "
              + chunkRows
              + " (expected: 1.."
              + MAX_CHUNK_ROWS
              + ", so that a chunk's images fit in 1 GiB)");
    }
    this.chunkRows = chunkRows;
    this.images = new DirectSamples(samples, IMAGE_BYTES, chunkRows);
    this.labels = new DirectSamples(samples, Long.BYTES, chunkRows);
    long[] values = CopyWorkload.generate(images, seed);
    for (int i = 0; i < samples; i++) {
      labels.buffer(i).putLong(labels.offset(i), values[i]);
    }
    this.chunks = new ColumnChunk[(samples + chunkRows - 1) / chunkRows];
    for (int c = 0; c < chunks.length; c++) {
      int first = c * chunkRows;
      int rows = Math.min(chunkRows, samples - first);
      chunks[c] = ColumnChunk.ofBuffers(rows, images.slice(first, rows), labels.slice(first, rows));
    }
  }

  @Override
  public String name() {
    return "stream";
  }

  @Override
  public long bytesPerSample() {
    return IMAGE_BYTES;
  }

  @Override
  public Schema schema() {
    return ReferenceWorkloads.SCHEMA;
  }

  @Override
  public long rowCount() {
    return images.count();
  }

  @Override
  public long samples() {
    return images.count();
  }

  @Override
  public DataLoader newLoader(LoaderOptions options) {
    return new DataLoader(this, options);
  }

  int chunkRows() {
    return chunkRows;
  }

  @Override
  public ChunkStream open(StreamRequest request) {
    if (request.worldSize() != 1) {
      throw new IllegalArgumentException(
          "worldSize: "
              + request.worldSize()
              + " (expected: 1; the stream workload serves one rank)");
    }
    int[] order = chunkOrder(request);
    return new ChunkStream() {
      private int next;

      @Override
      public ColumnChunk next() {
        return next < order.length ? chunks[order[next++]] : null;
      }

      @Override
      public void close() {
        next = order.length;
      }
    };
  }

  /** The chunks of {@code request}'s epoch, in stream order. */
  int[] chunkOrder(StreamRequest request) {
    if (request.shuffle()) {
      return Permutations.permutation(chunks.length, request.seed(), request.epoch());
    }
    int[] order = new int[chunks.length];
    for (int c = 0; c < order.length; c++) {
      order[c] = c;
    }
    return order;
  }

  /** Element {@code element} of sample {@code sample}'s image, channels first. */
  float value(int sample, int element) {
    return images.buffer(sample).getFloat(images.offset(sample) + element * Float.BYTES);
  }

  long label(int sample) {
    return labels.buffer(sample).getLong(labels.offset(sample));
  }
}
