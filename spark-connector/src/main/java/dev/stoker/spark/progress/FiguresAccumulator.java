package dev.stoker.spark.progress;

import dev.stoker.spark.ui.RankFigures;
import org.apache.spark.util.AccumulatorV2;

/**
 * A rank's latest figures for the Stoker page: each task's copy holds its rank's figures, which the
 * executor sends with its heartbeats and at the task's end; the driver's copy keeps the last one
 * merged. Named, so the stage page shows it per task as one line.
 */
final class FiguresAccumulator extends AccumulatorV2<RankFigures, RankFigures> {
  private static final long serialVersionUID = 1L;

  private volatile RankFigures figures;

  @Override
  public boolean isZero() {
    return figures == null;
  }

  @Override
  public AccumulatorV2<RankFigures, RankFigures> copy() {
    FiguresAccumulator copy = new FiguresAccumulator();
    copy.figures = figures;
    return copy;
  }

  @Override
  public void reset() {
    figures = null;
  }

  @Override
  public void add(RankFigures v) {
    figures = v;
  }

  @Override
  public void merge(AccumulatorV2<RankFigures, RankFigures> other) {
    RankFigures theirs = other.value();
    if (theirs != null) {
      figures = theirs;
    }
  }

  @Override
  public RankFigures value() {
    return figures;
  }
}
