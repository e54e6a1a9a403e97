package dev.stoker.loader;

/**
 * No batch came within the loader's {@code timeout}; the message says which batch was late, at
 * which stage, and what every loading thread was doing. The epoch then ends.
 */
public final class LoaderTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Stage stage;
  private final int epoch;
  private final int batch;

  public LoaderTimeoutException(Stage stage, int epoch, int batch, String message) {
    super(message);
    this.stage = stage;
    this.epoch = epoch;
    this.batch = batch;
  }

  /** The stage the late batch was waited for at. */
  public Stage stage() {
    return stage;
  }

  public int epoch() {
    return epoch;
  }

  public int batch() {
    return batch;
  }
}
