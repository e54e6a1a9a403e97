package dev.stoker.loader.transform;

/**
 * A sample's encoded image cannot be used: not a JPEG or PNG, truncated, larger than the pixel
 * bound, or refused by the decoder. The message names the column, the reason, the value's byte
 * length and the remedy. With {@code onBadSample=skip} the loader skips such a sample.
 */
public final class BadImageException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  BadImageException(String message) {
    super(message);
  }

  BadImageException(String message, Throwable cause) {
    super(message, cause);
  }
}
