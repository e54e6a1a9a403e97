package dev.stoker.loader.util;

/**
 * Closes several things in one go: runs every step even when one fails, keeps the first failure and
 * attaches the others to it as suppressed, then throws once. The one way Stoker closes more than
 * one resource.
 */
public final class Closer {
  /** A closing step that may throw anything. */
  @FunctionalInterface
  public interface Step {
    void run() throws Exception;
  }

  private Throwable first;

  /** Runs {@code step}, recording what it throws (an {@link Error} too). */
  public Closer run(Step step) {
    try {
      step.run();
    } catch (Throwable t) {
      add(t);
    }
    return this;
  }

  /** Records a failure found otherwise. */
  public Closer add(Throwable failure) {
    if (first == null) {
      first = failure;
    } else if (first != failure) {
      first.addSuppressed(failure);
    }
    return this;
  }

  /** The first failure, or null. */
  public Throwable failure() {
    return first;
  }

  /**
   * Throws the first failure, the others suppressed in it: an unchecked one as it is, a checked one
   * inside an {@link IllegalStateException}.
   */
  public void throwIfAny() {
    if (first instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (first instanceof Error error) {
      throw error;
    }
    if (first != null) {
      throw new IllegalStateException(first.getMessage(), first);
    }
  }
}
