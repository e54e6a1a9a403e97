package dev.stoker.spark.options;

/** Who reads an option. */
public enum OptionLayer {
  /** A loader knob, the same on every rank ({@code LoaderOptions}): read by both sides. */
  LOADER,
  /** Where a loader sits among the ranks ({@code worldSize}): read by both sides. */
  PLACEMENT,
  /** The DataSource's read ({@code format("stoker")}). */
  SOURCE,
  /** The runner's run ({@code StokerSpark}). */
  RUN
}
