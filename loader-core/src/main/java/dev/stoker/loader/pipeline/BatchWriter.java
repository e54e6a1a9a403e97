package dev.stoker.loader.pipeline;

/**
 * Writes one epoch's batches into host slots: the pipeline's input, whatever the source is (a
 * dataset read by index, or a stream of column chunks). Worker threads call {@link #write} for
 * different batches at once.
 */
public interface BatchWriter {
  /**
   * Writes batch {@code batch} into {@code target}'s host slot and records its rows with {@link
   * StagedBatch#filled}, reporting progress in {@code status}.
   *
   * @return false if the epoch has no batch {@code batch} (its stream ended before)
   * @throws BatchLoadException for a bad sample, naming it
   * @throws Exception for anything else; the pipeline names the batch and the stage
   */
  boolean write(StagedBatch target, int batch, WorkerStatus status) throws Exception;

  /**
   * What to report for {@code failure}, met while a batch was written but outside what {@link
   * #write} caught (a fault of a read the JVM delivers late, at a later instruction of the worker):
   * the source's own account of it, or {@code failure} as it is (the default).
   */
  default Throwable explain(Throwable failure) {
    return failure;
  }

  /**
   * The epoch was cancelled: a {@link #write} under way may stop early (its batch is dropped), so
   * that a writer looping in its own code ends without an interrupt. Any thread; must not block.
   */
  default void cancel() {}

  /**
   * Releases what the epoch held (a stream, its chunks). Called once, when no thread writes any
   * more.
   */
  default void close() throws Exception {}
}
