package dev.stoker.spark.collective;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a rank waits on a peer and how it notices that its task is being killed: waits run in
 * short slices, and between slices the cancellation check runs (Spark's throws when the task was
 * killed) and the thread's interrupt flag is looked at.
 *
 * @param timeout longest wait for a peer's next bytes, and the bound of the whole meeting; zero
 *     waits forever (a connection that is not a proven rank is still dropped after {@link
 *     StarListener#HANDSHAKE_LIMIT})
 * @param timeoutOption the option that sets the timeout, named in the error
 * @param checkCancelled throws if the rank should stop waiting
 */
public record Waits(Duration timeout, String timeoutOption, Runnable checkCancelled) {
  /** How often a wait looks at the cancellation check. */
  static final long SLICE_MILLIS = 100;

  /** A deadline that never passes: the timeout is zero. */
  static final long NONE = Long.MIN_VALUE;

  private static final Duration LONGEST = Duration.ofNanos(1L << 61);

  public Waits {
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(timeoutOption, "timeoutOption");
    Objects.requireNonNull(checkCancelled, "checkCancelled");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException(
          timeoutOption + ": " + timeout + " (expected: >= 0; 0 waits forever)");
    }
  }

  /** Waits of {@code timeout} that only the thread's interrupt cancels. */
  public static Waits of(Duration timeout) {
    return new Waits(timeout, "timeout", () -> {});
  }

  /** Throws if the task was cancelled or the thread interrupted (the flag stays set). */
  void check(String what) {
    checkCancelled.run();
    if (Thread.currentThread().isInterrupted()) {
      throw new CollectiveException(what + ": interrupted");
    }
  }

  /** Whether a wait that began at {@code startNanos} has run out. */
  boolean expired(long startNanos) {
    return !timeout.isZero() && System.nanoTime() - startNanos > nanos(timeout);
  }

  /** {@code duration} in nanoseconds, at most about 73 years so that deadlines never wrap. */
  static long nanos(Duration duration) {
    return duration.compareTo(LONGEST) >= 0 ? LONGEST.toNanos() : duration.toNanos();
  }

  /**
   * The deadline of a wait that begins at {@code startNanos} ({@link System#nanoTime()}), or {@link
   * #NONE} when the timeout is zero.
   */
  long deadline(long startNanos) {
    return timeout.isZero() ? NONE : startNanos + nanos(timeout);
  }

  /** Whether {@code deadline} (from {@link #deadline}) has passed. */
  static boolean passed(long deadline) {
    return deadline != NONE && System.nanoTime() - deadline >= 0;
  }

  /** Milliseconds until {@code deadline}, at least 1 and at most {@code most}. */
  static long millisLeft(long deadline, long most) {
    if (deadline == NONE) {
      return most;
    }
    long left = (deadline - System.nanoTime()) / 1_000_000;
    return Math.max(1, Math.min(most, left));
  }

  /** The error of a wait that ran out. */
  CollectiveException timedOut(String what) {
    return new CollectiveException(
        what
            + ": nothing for "
            + describe(timeout)
            + " (expected: "
            + "every rank to make the same collective calls in the same order; if a rank is just "
            + "slow, raise "
            + timeoutOption
            + ")");
  }

  /** The error of a meeting that ran past its deadline: {@code what} says who is missing. */
  CollectiveException meetingTimedOut(String what) {
    return new CollectiveException(
        what
            + " within "
            + describe(timeout)
            + " (expected: every "
            + "rank to make the same collective calls in the same order; if a rank is just slow, "
            + "raise "
            + timeoutOption
            + ")");
  }

  static String describe(Duration duration) {
    long millis = duration.toMillis();
    return millis % 1000 != 0 ? millis + " ms" : millis / 1000 + " s";
  }
}
