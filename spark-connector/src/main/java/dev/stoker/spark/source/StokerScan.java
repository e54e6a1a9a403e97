package dev.stoker.spark.source;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.parquet.GlobalBatch;
import dev.stoker.spark.parquet.ParquetRead;
import dev.stoker.spark.parquet.ParquetResume;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.ReadRun;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * A planned read: every rank's rows are fixed, and so are the rows dropped or padded, which the
 * description and the driver metrics report.
 */
public final class StokerScan implements Scan {
  private final ReadPlan plan;
  private final ReadConfig config;
  private final ParquetRead read;
  private final LoaderState resumedFrom;

  StokerScan(ReadPlan plan, ReadConfig config, ParquetRead read, LoaderState resumedFrom) {
    this.plan = plan;
    this.config = config;
    this.read = read;
    this.resumedFrom = resumedFrom;
  }

  /**
   * The state of this read after {@code batchesPerRank} batches on each of its ranks: what a read
   * with option {@code resumeFrom} (or a run) resumes from, on any number of ranks. After the last
   * batch, the start of the next epoch.
   *
   * @throws IllegalArgumentException unless {@code 0 <= batchesPerRank <= batchesPerRank()}
   */
  public LoaderState stateAfter(long batchesPerRank) {
    int worldSize = plan.ranks().size();
    LoaderOptions options = config.loader().options();
    LoaderState base =
        resumedFrom != null
            ? resumedFrom.resumedOn(worldSize)
            : LoaderState.startOf(
                options.seed(),
                options.shuffle(),
                config.epoch(),
                worldSize,
                options.batchSize(),
                options.dropLast(),
                config.windowRows(),
                read.fingerprint());
    GlobalBatch global = read.global();
    if (resumedFrom == null && global != null) {
      base = base.inStreams(global.streams());
    }
    return ParquetResume.after(base, plan.batchesPerRank(), batchesPerRank, true);
  }

  /**
   * The read behind the scan, for the runner, which plans it again for its own ranks with the
   * options both sides were given.
   */
  public ParquetRead read() {
    return read;
  }

  /**
   * Every rank's rows, for consumers that run the ranks' loaders themselves (the Python bridge).
   */
  public ReadPlan plan() {
    return plan;
  }

  /** The read's columns and loader options, as the ranks' readers get them. */
  public ReadConfig config() {
    return config;
  }

  @Override
  public StructType readSchema() {
    return config.delivered() != null ? config.delivered() : config.schema();
  }

  @Override
  public ColumnarSupportMode columnarSupportMode() {
    return ColumnarSupportMode.SUPPORTED;
  }

  @Override
  public Batch toBatch() {
    return new StokerBatch(plan, config, read.dataset());
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return SourceMetrics.supported();
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    return new CustomTaskMetric[] {
      SourceMetrics.value(SourceMetrics.ROWS_DROPPED, plan.droppedRows()),
      SourceMetrics.value(
          SourceMetrics.TOKENS_DROPPED, plan.packed() == null ? 0 : plan.packed().droppedTokens())
    };
  }

  /** Rows every rank reads. */
  public long rowsPerRank() {
    return plan.rowsPerRank();
  }

  /** Batches every rank yields. */
  public int batchesPerRank() {
    return plan.batchesPerRank();
  }

  /** Rows no rank reads ({@code dropLast}). */
  public long droppedRows() {
    return plan.droppedRows();
  }

  /** Rows read twice to pad the ranks to equal rows (without {@code dropLast}). */
  public long paddedRows() {
    return plan.paddedRows();
  }

  /** Rows in the files. */
  public long rows() {
    return plan.rows();
  }

  /** Runs of row groups that Spark's Parquet reader reads, for encodings Stoker's does not. */
  public int sparkReaderRuns() {
    int runs = 0;
    for (List<ReadRun> rank : plan.ranks()) {
      for (ReadRun run : rank) {
        runs += run.decodable() ? 0 : 1;
      }
    }
    return runs;
  }

  @Override
  public String description() {
    LoaderOptions options = config.loader().options();
    int runs = plan.ranks().stream().mapToInt(List::size).sum();
    return String.format(
            Locale.ROOT,
            "stoker [%s: %d file(s), %d row group(s), %d rows; %d "
                + "rank(s) x %d batch(es) of %d rows, %d rows dropped, %d padded; %s, epoch %d%s, "
                + "shuffle buffer %d rows; %d of %d run(s) read by Spark's Parquet reader; the "
                + "Stoker tab lists this read]",
            read.dataset().input(),
            read.dataset().files().size(),
            plan.rowGroups(),
            plan.rows(),
            plan.ranks().size(),
            plan.batchesPerRank(),
            options.batchSize(),
            plan.droppedRows(),
            plan.paddedRows(),
            options.shuffle() ? "shuffled, seed " + options.seed() : "in order",
            config.epoch(),
            resumedFrom == null ? "" : " resumed after " + resumedFrom.consumedRows() + " rows",
            config.windowRows(),
            sparkReaderRuns(),
            runs)
        + tokens();
  }

  /** With token rows, what they are made of. */
  private String tokens() {
    if (config.tokens() == null) {
      return "";
    }
    ReadPlan.PackedTokens packed = plan.packed();
    return packed == null
        ? String.format(" [%s]", config.tokens())
        : String.format(
            Locale.ROOT,
            " [%s: %d tokens, %d dropped (%.2f %%): the tail past the last full step]",
            config.tokens(),
            packed.tokens(),
            packed.droppedTokens(),
            packed.tokens() == 0 ? 0.0 : 100.0 * packed.droppedTokens() / packed.tokens());
  }

  @Override
  public String toString() {
    return description();
  }
}
