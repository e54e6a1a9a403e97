package dev.stoker.spark.run;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.ColumnTarget;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.spark.parquet.ColumnSpec;
import dev.stoker.spark.parquet.EpochPlanner;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.RankStream;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.SourceCounters;
import dev.stoker.spark.parquet.TurnStream;
import dev.stoker.spark.parquet.WindowSink;
import dev.stoker.spark.shard.MappedShard;
import dev.stoker.spark.shard.Normalization;
import dev.stoker.spark.shard.RowConverter;
import dev.stoker.spark.shard.RowNormalizer;
import dev.stoker.spark.shard.RowWidener;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A streaming rank's rows as its loader's one source: an epoch streams the rank's planned Parquet
 * runs (shuffled per window), writing the shard cache on the way when {@link RankCache} says so,
 * and once the cache is complete every later epoch reads it (shuffled over the whole rank). With an
 * {@link EpochPlanner}, every epoch streams the rank's share of that epoch's own plan instead.
 * Columns with a normalization are written to the batch as normalized float32, columns declared
 * wider than stored (int32 as int64, float32 as float64) widened.
 */
final class PlannedDataset implements StreamedDataset {
  /**
   * The batch's fields, and per field the converter of a column stored as another dtype
   * (normalized, or widened), else null.
   */
  record Parts(Schema schema, RowConverter[] converters) {
    /**
     * The parts for the read's {@code stored} columns, {@code declared} as the run's fields (in the
     * same order), some {@code normalized}.
     *
     * @throws IllegalArgumentException if a normalization names no column, or one it cannot apply
     *     to, or a column is stored as a dtype its declaration cannot take exactly
     */
    /** The parts of a read with a transform: its input as stored, nothing converted. */
    static Parts transformed(ReadConfig config) {
      Schema input = config.loaderSchema();
      return new Parts(input, new RowConverter[input.size()]);
    }

    static Parts of(List<ColumnSpec> stored, List<Field> declared, Normalization[] normalized) {
      List<Field> fields = new ArrayList<>();
      RowConverter[] converters = new RowConverter[stored.size()];
      for (int c = 0; c < stored.size(); c++) {
        ColumnSpec column = stored.get(c);
        Field raw = Field.of(column.name(), column.dtype(), column.shape());
        Field field = declared.get(c);
        Normalization normalization = null;
        for (Normalization n : normalized) {
          normalization = n.column().equals(field.name()) ? n : normalization;
        }
        if (normalization != null) {
          converters[c] = new RowNormalizer(raw, normalization);
          field = normalization.output(raw);
        } else if (raw.dtype() != field.dtype()) {
          converters[c] = RowWidener.of(raw, field);
        }
        fields.add(field);
      }
      return new Parts(Schema.of(fields), converters);
    }
  }

  private final ReadConfig config;
  private final RankRuns runs;

  /** Plans each epoch again over the whole input, or null: {@code runs} every epoch. */
  private final EpochPlanner epochs;

  private final Schema schema;
  private final RowConverter[] converters;
  private final boolean converts;
  private final RankCache cache;
  private final HostAllocator windows;
  private final SourceCounters counters;

  /** The epoch resumed mid-way and the rank's runs for its rest, or null. */
  private final CommitLog.Start start;

  /**
   * @param schema the batch's fields: the read's, a normalized column as float32
   * @param converters per field, the converter of a column stored as another dtype, else null
   */
  PlannedDataset(
      ReadConfig config,
      RankRuns runs,
      EpochPlanner epochs,
      Schema schema,
      RowConverter[] converters,
      RankCache cache,
      HostAllocator windows,
      SourceCounters counters,
      CommitLog.Start start) {
    this.start = start;
    this.config = config;
    this.runs = runs;
    this.epochs = epochs;
    this.schema = schema;
    this.converters = converters.clone();
    boolean any = false;
    for (RowConverter converter : converters) {
      any |= converter != null;
    }
    this.converts = any;
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

  /** The rows left of the resumed epoch, or the rank's rows. */
  @Override
  public long rowCount(int epoch) {
    return resumes(epoch) ? start.runs().rows() : runs.rows();
  }

  private boolean resumes(int epoch) {
    return start != null && start.state().epoch() == epoch;
  }

  @Override
  public ChunkStream open(StreamRequest request) throws Exception {
    if (resumes(request.epoch())) {
      // The rest of an epoch: streamed from where it stopped, and never cached (a part only).
      ChunkStream rest = TurnStream.open(config, start.runs(), request, windows, counters, null);
      return converts ? new ConvertingStream(rest) : rest;
    }
    if (epochs != null) {
      // This epoch's share of the whole input, in its own order; never cached (it changes).
      RankRuns share = epochs.runs(runs.rank(), request.epoch());
      ChunkStream stream = TurnStream.open(config, share, request, windows, counters, null);
      return converts ? new ConvertingStream(stream) : stream;
    }
    MappedShard mapped = cache.mapped();
    if (mapped != null) {
      cache.openCachedEpoch();
      return new CacheStream(mapped, converters, request, config.windowRows());
    }
    WindowSink sink = cache.openEpoch();
    RankStream stream = new RankStream(config, runs, request, windows, counters, sink);
    return converts ? new ConvertingStream(stream) : stream;
  }

  /** The Parquet stream, with the columns stored as another dtype converted as they are copied. */
  private final class ConvertingStream implements ChunkStream {
    private final ChunkStream stream;

    ConvertingStream(ChunkStream stream) {
      this.stream = stream;
    }

    @Override
    public ColumnChunk next() throws Exception {
      ColumnChunk chunk = stream.next();
      return chunk == null ? null : new ConvertingChunk((RankStream.WindowChunk) chunk);
    }

    @Override
    public void close() throws Exception {
      stream.close();
    }
  }

  private final class ConvertingChunk implements ColumnChunk {
    private final RankStream.WindowChunk chunk;

    ConvertingChunk(RankStream.WindowChunk chunk) {
      this.chunk = chunk;
    }

    @Override
    public int rows() {
      return chunk.rows();
    }

    @Override
    public void copyTo(int field, int fromRow, ColumnTarget target) throws Exception {
      RowConverter converter = converters[field];
      if (converter == null) {
        chunk.copyTo(field, fromRow, target);
        return;
      }
      ByteBuffer bytes = chunk.bytes();
      for (int i = 0; i < target.rows(); i++) {
        converter.write(bytes, chunk.offset(field, fromRow + i), target);
      }
    }

    @Override
    public void close() throws Exception {
      chunk.close();
    }
  }
}
