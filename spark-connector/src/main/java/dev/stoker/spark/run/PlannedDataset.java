package dev.stoker.spark.run;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.ColumnTarget;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.RankStream;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.SourceCounters;
import dev.stoker.spark.parquet.WindowSink;
import dev.stoker.spark.run.shard.MappedShard;
import dev.stoker.spark.run.shard.RowNormalizer;
import dev.stoker.loader.Field;
import dev.stoker.spark.parquet.ColumnSpec;
import dev.stoker.spark.run.shard.Normalization;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A streaming rank's rows as its loader's one source: an epoch streams the rank's planned
 * Parquet runs (shuffled per window), writing the shard cache on the way when {@link RankCache}
 * says so, and once the cache is complete every later epoch reads it (shuffled over the whole
 * rank). Columns with a normalization are written to the batch as normalized float32.
 */
final class PlannedDataset implements StreamedDataset {
  /**
   * The batch's fields of a read's columns, and per field the normalizer of a normalized column
   * (else null).
   */
  record Parts(Schema schema, RowNormalizer[] normalizers) {
    /**
     * @throws IllegalArgumentException if a normalization names no column, or one it cannot
     *     apply to
     */
    static Parts of(List<ColumnSpec> columns, Normalization[] normalizations) {
      List<Field> fields = new ArrayList<>();
      RowNormalizer[] normalizers = new RowNormalizer[columns.size()];
      for (ColumnSpec column : columns) {
        fields.add(Field.of(column.name(), column.dtype(), column.shape()));
      }
      for (Normalization normalization : normalizations) {
        int c = 0;
        while (c < fields.size() && !fields.get(c).name().equals(normalization.column())) {
          c++;
        }
        if (c == fields.size()) {
          throw new IllegalArgumentException(normalization + ": no column '"
              + normalization.column() + "' among " + fields);
        }
        normalizers[c] = new RowNormalizer(fields.get(c), normalization);
        fields.set(c, normalization.output(fields.get(c)));
      }
      return new Parts(Schema.of(fields), normalizers);
    }
  }

  private final ReadConfig config;
  private final RankRuns runs;
  private final Schema schema;
  private final RowNormalizer[] normalizers;
  private final boolean normalizes;
  private final RankCache cache;
  private final HostAllocator windows;
  private final SourceCounters counters;

  /**
   * @param schema the batch's fields: the read's, a normalized column as float32
   * @param normalizers per field, the normalizer of a normalized column, else null
   */
  PlannedDataset(ReadConfig config, RankRuns runs, Schema schema, RowNormalizer[] normalizers,
      RankCache cache, HostAllocator windows, SourceCounters counters) {
    this.config = config;
    this.runs = runs;
    this.schema = schema;
    this.normalizers = normalizers.clone();
    boolean any = false;
    for (RowNormalizer normalizer : normalizers) {
      any |= normalizer != null;
    }
    this.normalizes = any;
    this.cache = cache;
    this.windows = windows;
    this.counters = counters;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public long rowCount() {
    return runs.rows();
  }

  @Override
  public ChunkStream open(StreamRequest request) throws Exception {
    MappedShard mapped = cache.mapped();
    if (mapped != null) {
      cache.openCachedEpoch();
      return new CacheStream(mapped, normalizers, request, config.windowRows());
    }
    WindowSink sink = cache.openEpoch();
    RankStream stream = new RankStream(config, runs, request, windows, counters, sink);
    return normalizes ? new NormalizingStream(stream) : stream;
  }

  /** The Parquet stream, with the normalized columns converted as they are copied. */
  private final class NormalizingStream implements ChunkStream {
    private final RankStream stream;

    NormalizingStream(RankStream stream) {
      this.stream = stream;
    }

    @Override
    public ColumnChunk next() throws Exception {
      ColumnChunk chunk = stream.next();
      return chunk == null ? null : new NormalizingChunk((RankStream.WindowChunk) chunk);
    }

    @Override
    public void close() throws Exception {
      stream.close();
    }
  }

  private final class NormalizingChunk implements ColumnChunk {
    private final RankStream.WindowChunk chunk;

    NormalizingChunk(RankStream.WindowChunk chunk) {
      this.chunk = chunk;
    }

    @Override
    public int rows() {
      return chunk.rows();
    }

    @Override
    public void copyTo(int field, int fromRow, ColumnTarget target) throws Exception {
      RowNormalizer normalizer = normalizers[field];
      if (normalizer == null) {
        chunk.copyTo(field, fromRow, target);
        return;
      }
      ByteBuffer bytes = chunk.bytes();
      for (int i = 0; i < target.rows(); i++) {
        normalizer.write(bytes, chunk.offset(field, fromRow + i), target);
      }
    }

    @Override
    public void close() throws Exception {
      chunk.close();
    }
  }
}
