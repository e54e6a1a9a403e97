package dev.stoker.tools.bench;

import static dev.stoker.tools.bench.TypedColumns.BYTES;
import static dev.stoker.tools.bench.TypedColumns.DOUBLES;
import static dev.stoker.tools.bench.TypedColumns.FLOATS;
import static dev.stoker.tools.bench.TypedColumns.INTS;
import static dev.stoker.tools.bench.TypedColumns.LONGS;
import static dev.stoker.tools.bench.TypedColumns.elements;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.ColumnTarget;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;
import dev.stoker.loader.sampler.Permutations;

/**
 * The {@code typed-stream} workload: the {@code typed} workload's data streamed in chunks of {@code
 * chunkRows} rows, each chunk copying a run of rows of a field with one typed bulk put of {@link
 * ColumnTarget} ({@code putFloats}, {@code putDoubles}, {@code putInts}, {@code putLongs}, {@code
 * putBytes}). Chunks are shuffled by {@code (seed, epoch)} when the loader shuffles, as the {@code
 * stream} workload's are; one rank.
 */
final class TypedStream implements Workload, StreamedDataset {
  private final TypedColumns data;
  private final int chunkRows;
  private final int chunkCount;

  TypedStream(int samples, long seed, int chunkRows) {
    if (chunkRows <= 0) {
      throw new IllegalArgumentException("chunkRows: " + chunkRows + " (expected: > 0)");
    }
    this.data = new TypedColumns(samples, seed);
    this.chunkRows = chunkRows;
    this.chunkCount = (samples + chunkRows - 1) / chunkRows;
  }

  @Override
  public String name() {
    return "typed-stream";
  }

  @Override
  public long bytesPerSample() {
    return TypedColumns.SAMPLE_BYTES;
  }

  @Override
  public Schema schema() {
    return TypedColumns.SCHEMA;
  }

  @Override
  public long rowCount() {
    return data.samples;
  }

  @Override
  public long samples() {
    return data.samples;
  }

  @Override
  public DataLoader newLoader(LoaderOptions options) {
    return new DataLoader(this, options);
  }

  @Override
  public ChunkStream open(StreamRequest request) {
    if (request.worldSize() != 1) {
      throw new IllegalArgumentException(
          "worldSize: "
              + request.worldSize()
              + " (expected: 1; the typed-stream workload serves one rank)");
    }
    int[] order =
        request.shuffle()
            ? Permutations.permutation(chunkCount, request.seed(), request.epoch())
            : identity(chunkCount);
    return new ChunkStream() {
      private int next;

      @Override
      public ColumnChunk next() {
        return next < order.length ? new Chunk(order[next++] * chunkRows) : null;
      }

      @Override
      public void close() {
        next = order.length;
      }
    };
  }

  private static int[] identity(int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    return order;
  }

  /** Rows {@code [first, first + rows())} of the data. */
  private final class Chunk implements ColumnChunk {
    private final int first;

    Chunk(int first) {
      this.first = first;
    }

    @Override
    public int rows() {
      return Math.min(chunkRows, data.samples - first);
    }

    @Override
    public void copyTo(int field, int fromRow, ColumnTarget target) {
      int per = elements(field);
      int from = (first + fromRow) * per;
      int length = target.rows() * per;
      switch (field) {
        case FLOATS -> target.putFloats(data.floats, from, length);
        case DOUBLES -> target.putDoubles(data.doubles, from, length);
        case INTS -> target.putInts(data.ints, from, length);
        case LONGS -> target.putLongs(data.longs, from, length);
        case BYTES -> target.putBytes(data.bytes, from, length);
        default -> throw new IllegalArgumentException("field: " + field + " (expected: 0..4)");
      }
    }
  }
}
