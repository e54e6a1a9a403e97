package dev.stoker.loader;

import java.util.Locale;

/**
 * A batch could not be loaded: names the loader, the stage, the epoch, the batch and (where one
 * sample was at fault) the sample, and keeps the cause, whatever it was (an {@link Error} too).
 * Thrown to the consumer at the batch where it happened; the epoch then ends.
 */
public final class BatchLoadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Stage stage;
  private final int epoch;
  private final int batch;
  private final long sampleIndex;

  /**
   * @param detail what went wrong, after the place, e.g. {@code sample 4711 (row 3 of 64): ...}
   * @param sampleIndex the dataset index of the failing sample, or -1
   */
  public BatchLoadException(
      String loader,
      Stage stage,
      int epoch,
      int batch,
      long sampleIndex,
      String detail,
      Throwable cause) {
    super(
        String.format(
            Locale.ROOT,
            "loader '%s' epoch %d batch %d (%s): %s",
            loader,
            epoch,
            batch,
            stage.label(),
            detail),
        cause);
    this.stage = stage;
    this.epoch = epoch;
    this.batch = batch;
    this.sampleIndex = sampleIndex;
  }

  /** A failure not tied to one sample; the detail is the cause. */
  public static BatchLoadException of(
      String loader, Stage stage, int epoch, int batch, Throwable cause) {
    return new BatchLoadException(loader, stage, epoch, batch, -1, String.valueOf(cause), cause);
  }

  public Stage stage() {
    return stage;
  }

  public int epoch() {
    return epoch;
  }

  public int batch() {
    return batch;
  }

  /** The dataset index of the failing sample, or -1 when the failure was not in one sample. */
  public long sampleIndex() {
    return sampleIndex;
  }
}
