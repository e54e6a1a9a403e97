package dev.stoker.loader.pipeline;

/** No batch came within the loader's {@code timeout}; the message says what every worker was doing. */
public final class LoaderTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LoaderTimeoutException(String message) {
    super(message);
  }
}
