package dev.stoker.spark.run;

/**
 * A rank's input that no retry can read: a row its column cannot take, or a file that failed to
 * decode the same way twice. Its task fails with it, and the driver, which watches for it, ends the
 * run at once with its message instead of letting Spark retry the stage.
 */
public final class InputFaultException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  InputFaultException(String message, Throwable cause) {
    super(message, cause);
  }
}
