package dev.stoker.loader.pipeline;

/**
 * A batch could not be loaded: names the epoch, the batch and the sample, and keeps the cause.
 * Thrown to the consumer at the batch where it happened.
 */
public final class BatchLoadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int epoch;
  private final int batch;
  private final int sampleIndex;

  public BatchLoadException(String message, int epoch, int batch, int sampleIndex, Throwable cause) {
    super(message, cause);
    this.epoch = epoch;
    this.batch = batch;
    this.sampleIndex = sampleIndex;
  }

  public int epoch() {
    return epoch;
  }

  public int batch() {
    return batch;
  }

  /** The dataset index of the failing sample, or -1 when the failure was not in one sample. */
  public int sampleIndex() {
    return sampleIndex;
  }
}
