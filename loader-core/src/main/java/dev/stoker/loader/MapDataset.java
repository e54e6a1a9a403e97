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

  /**
   * Called by the thread that wrote a batch's samples, after the last of them (or after one failed)
   * and before the batch is handed on. A dataset whose reads can fail after they returned (a
   * memory-mapped file that shrank: the JVM reports the lost page later, in the same thread,
   * possibly between two samples) reports it here, so that it fails this batch rather than escaping
   * elsewhere. An exception fails the batch whatever {@code onBadSample} says. Does nothing by
   * default.
   *
   * @param failure what ended the batch's writing early (a sample's failure, or an error raised
   *     between two samples), or null if every sample was written or skipped
   */
  default void checkBatch(Throwable failure) throws Exception {}
}
