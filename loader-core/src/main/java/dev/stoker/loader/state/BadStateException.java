package dev.stoker.loader.state;

/**
 * A state string that is not one this Stoker can resume from: corrupted, cut, or of another format.
 */
public final class BadStateException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public BadStateException(String message) {
    super(message);
  }

  public BadStateException(String message, Throwable cause) {
    super(message, cause);
  }
}
