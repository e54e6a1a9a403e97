package dev.stoker.spark.parquet;

import java.io.IOException;

/**
 * A file that failed to decode the same way when its run was read again, after as many rows: the
 * file's own fault, which no retry can mend.
 */
public final class UnreadableInputException extends IOException {
  private static final long serialVersionUID = 1L;

  UnreadableInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
