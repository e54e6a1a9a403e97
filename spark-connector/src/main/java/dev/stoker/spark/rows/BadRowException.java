package dev.stoker.spark.rows;

/**
 * A value of the input that its column cannot hold: a null, a wrong length, a number out of range.
 * The input is at fault, so the run stops with this message instead of retrying.
 */
public final class BadRowException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public BadRowException(String message) {
    super(message);
  }
}
