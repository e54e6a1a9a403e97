package dev.stoker.spark.collective;

/**
 * A collective operation could not complete on this rank: the ranks disagreed on the call, a peer
 * went away, or a wait ran past the timeout. The connection is closed afterwards (except after a
 * disagreement, which leaves it in step), so every rank fails instead of waiting.
 */
public final class CollectiveException extends IllegalStateException {
  private static final long serialVersionUID = 1L;
  private final transient boolean inStep;

  public CollectiveException(String message) {
    this(message, null, false);
  }

  public CollectiveException(String message, Throwable cause) {
    this(message, cause, false);
  }

  CollectiveException(String message, Throwable cause, boolean inStep) {
    super(message, cause);
    this.inStep = inStep;
  }

  /** Whether the ranks are still in step after it: a disagreement every rank learned of. */
  boolean inStep() {
    return inStep;
  }
}
