package dev.stoker.spark;

/**
 * A rank's function, or the loading around it, failed: names the rank and the stage attempt and
 * keeps the cause. Spark then fails the barrier stage and retries it as a whole.
 */
public final class RankFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RankFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
