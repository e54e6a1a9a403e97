package dev.stoker.loader;

/**
 * A dataset of {@link #size()} samples addressed by index, each written straight into its row of a
 * batch buffer: no per-sample objects, no second copy. Worker threads call {@link #write}
 * concurrently for different rows, so it must be safe to call from several threads.
 */
public interface MapDataset {
  /** The fields every sample has. */
  Schema schema();

  /** Number of samples. */
  int size();

  /**
   * Writes sample {@code index} (0 &lt;= index &lt; size) into {@code row}. An exception fails the
   * batch or skips the sample, as the loader's {@code onBadSample} says.
   */
  void write(int index, SampleWriter row) throws Exception;
}
