package dev.stoker.spark.progress;

import dev.stoker.spark.ui.RankFigures;
import java.io.Serializable;
import java.util.Set;
import org.apache.spark.SparkContext;
import org.apache.spark.util.AccumulatorV2;
import org.apache.spark.util.LongAccumulator;

/**
 * The accumulators one run's ranks count their progress in, registered on the driver by name so
 * that the Spark UI shows them per task; executors send their values with every heartbeat.
 */
public final class ProgressCounters implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The accumulator of rows read into the shards. */
  public static final String ROWS_LOADED = "stoker rows loaded";

  /** The accumulator of batches handed to the rank functions. */
  public static final String BATCHES_DELIVERED = "stoker batches delivered";

  /** The accumulator of the time the rank functions waited for batches, in ms. */
  public static final String WAIT_MILLIS = "stoker wait ms";

  /** The accumulator of the ranks' figures for the Stoker page. */
  static final String FIGURES = "stoker rank";

  final LongAccumulator rowsLoaded;
  final LongAccumulator batchesDelivered;
  final LongAccumulator waitMillis;

  /** Each rank's figures for the Stoker page. */
  final AccumulatorV2<RankFigures, RankFigures> figures;

  private ProgressCounters(SparkContext spark) {
    this.rowsLoaded = spark.longAccumulator(ROWS_LOADED);
    this.batchesDelivered = spark.longAccumulator(BATCHES_DELIVERED);
    this.waitMillis = spark.longAccumulator(WAIT_MILLIS);
    this.figures = new FiguresAccumulator();
    spark.register(figures, FIGURES);
  }

  public static ProgressCounters register(SparkContext spark) {
    return new ProgressCounters(spark);
  }

  /** Rows a rank loaded into its shard or loader (the rows path's fill). */
  public LongAccumulator rowsLoaded() {
    return rowsLoaded;
  }

  Set<Long> ids() {
    return Set.of(rowsLoaded.id(), batchesDelivered.id(), waitMillis.id(), figures.id());
  }
}
