package dev.stoker.spark.run;

import java.io.IOException;

/**
 * A rank's input failed the same way when read a second time (a corrupt page, a missing file):
 * a retry of the stage would meet it again, so the ranks refuse the run at once with it.
 */
public final class UnreadableInputException extends IOException {
  private static final long serialVersionUID = 1L;

  UnreadableInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
