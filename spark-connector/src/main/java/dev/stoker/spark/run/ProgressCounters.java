package dev.stoker.spark.run;

import dev.stoker.spark.RankProgress;
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

  /** The accumulator of the ranks' figures for the Stoker page. */
  static final String FIGURES = "stoker rank";

  final LongAccumulator rowsLoaded;
  final LongAccumulator batchesDelivered;
  final LongAccumulator waitMillis;

  /** Each rank's figures for the Stoker page. */
  final AccumulatorV2<RankFigures, RankFigures> figures;

  private ProgressCounters(SparkContext spark) {
    this.rowsLoaded = spark.longAccumulator(RankProgress.ROWS_LOADED);
    this.batchesDelivered = spark.longAccumulator(RankProgress.BATCHES_DELIVERED);
    this.waitMillis = spark.longAccumulator(RankProgress.WAIT_MILLIS);
    this.figures = new FiguresAccumulator();
    spark.register(figures, FIGURES);
  }

  static ProgressCounters register(SparkContext spark) {
    return new ProgressCounters(spark);
  }

  Set<Long> ids() {
    return Set.of(rowsLoaded.id(), batchesDelivered.id(), waitMillis.id(), figures.id());
  }
}
