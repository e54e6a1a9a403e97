package dev.stoker.spark.python;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The control block at the start of a rank's shared-memory file, and the JVM's side of it: the JVM
 * posts batches in order into a ring of {@link #RING} entries (where its slot is, how many rows,
 * its index), as many ahead as its loader has slots, and Python releases them in order; each word
 * has one writer. Posting ahead is what keeps both sides busy: Python finds the next batch already
 * posted, and the JVM fills while Python steps, with no round trip per batch. The Python package
 * reads the same layout ({@code stoker/_channel.py}); {@link #VERSION} changes with it. A side that
 * waits asks for a few batches at once, not one (see {@link RankPump}), so that the two wake each
 * other once per few batches, not once per batch.
 *
 * <p>Several epochs go through one file, one after the other, their batches numbered on across
 * them: the JVM starts the first at once, posts its batches, says where it ended, and starts the
 * next only when Python asks for it, once every batch before is released.
 *
 * <pre>
 * offset  type   writer  meaning
 *      0  int64  JVM     magic "STOKERPY" (little-endian)
 *      8  int32  JVM     layout version
 *     12  int32  JVM     JVM state: 1 running, 3 failed, 4 stopped (task over)
 *     16  int32  Python  Python state: 0 not attached, 1 attached, 2 closed (consumer stopped)
 *     20  int32  JVM     bytes of the error text at 128
 *     24  int64  JVM     batches posted (batch k is posted when this becomes k + 1)
 *     32  int64  Python  batches released (Python is done with batch k when this becomes k + 1)
 *     40  int32  JVM     entries in the ring ({@link #RING})
 *     44  int32  JVM     while the JVM may sleep on the doorbell: the released count it waits
 *                        for (0: awake); Python rings once its count reaches it
 *     48  int32  Python  while Python may sleep on the doorbell: the posted count it waits for
 *                        (0: awake); the JVM rings once its count reaches it, or it ends
 *     52  int32  JVM     most batches posted and not released at once (0 until the JVM
 *                        knows it): a waiting Python asks for half of them
 *     56  int64  JVM     the JVM's process id
 *     64  int64  Python  the Python process id
 *     72  int32  Python  epochs asked for (the JVM starts the first unasked, and epoch i + 1
 *                        once this is i + 2)
 *     76  int32  JVM     while the JVM may sleep until an epoch is asked for: the count of
 *                        epochs asked it waits for (0: awake); Python rings once it asks
 *     80  int64  JVM     batches posted when the last ended epoch ended
 *     88  int32  JVM     epochs ended: all of their batches posted
 *     96  int64  Python  nanoseconds Python waited for batches not yet posted
 *    104  int64  Python  nanoseconds Python spent on its batches (from one batch's arrival to
 *                        asking for the next, within an epoch)
 *    112  int64  Python  batches Python took (batch k taken when this becomes k + 1)
 *    120  int64  Python  rows of the batches Python took
 *    128  bytes  JVM     the error text (UTF-8), when failed, up to offset 4096
 *   4096  ring   JVM     batch k's entry at 4096 + 16 (k % entries): int64 slot offset in the
 *                        file, int32 valid rows, int32 index in its epoch
 * </pre>
 */
final class SlotChannel {
  static final long MAGIC = 0x5950_5245_4B4F_5453L; // "STOKERPY" read as little-endian bytes
  static final int VERSION = 5;

  /** Bytes of the control block: a page of words and error text, a page of ring entries. */
  static final int BYTES = 8192;

  /** Ring entries: batches posted and not yet released are at most this many. */
  static final int RING = 256;

  static final int RUNNING = 1;
  static final int FAILED = 3;
  static final int STOPPED = 4;
  static final int PY_CLOSED = 2;

  private static final int VERSION_AT = 8;
  private static final int JVM_STATE_AT = 12;
  private static final int PY_STATE_AT = 16;
  private static final int ERROR_LENGTH_AT = 20;
  private static final int POSTED_AT = 24;
  private static final int RELEASED_AT = 32;
  private static final int RING_AT_WORD = 40;
  private static final int JVM_WAITING_AT = 44;
  private static final int PY_WAITING_AT = 48;
  private static final int AHEAD_AT = 52;

  /** Longest sleep on the doorbell before the waiter looks again whatever happened. */
  private static final long BELL_WAIT_NANOS = 2_000_000;

  private static final int JVM_PID_AT = 56;
  private static final int ASKED_AT = 72;
  private static final int JVM_WAITING_EPOCH_AT = 76;
  private static final int EPOCH_END_AT = 80;
  private static final int EPOCHS_ENDED_AT = 88;
  private static final int PY_WAIT_NANOS_AT = 96;
  private static final int PY_STEP_NANOS_AT = 104;
  private static final int PY_TAKEN_AT = 112;
  private static final int PY_ROWS_AT = 120;
  private static final int ERROR_AT = 128;
  private static final int ERROR_END = 4096;
  private static final int RING_AT = 4096;
  private static final int ENTRY_BYTES = 16;

  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final VarHandle INTS =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

  /**
   * How long a wait yields the processor before it sleeps on the doorbell or parks. A batch is
   * usually released within that (a Python step on a posted batch takes some microseconds), and a
   * yield hands the processor to whichever thread needs it, while a sleep costs both sides a system
   * call and a wake-up, which on a virtual machine can take tens of microseconds.
   */
  private static final long YIELD_NANOS = 50_000;

  /**
   * Longest park between two looks at the released count. The JVM waits only with every slot
   * posted, so a late look delays a refill that other posted batches cover.
   */
  private static final long MAX_PARK_NANOS = 250_000;

  private final ByteBuffer control;
  private final Doorbell bell;

  /**
   * Writes a fresh control block into {@code control} (at least {@link #BYTES}, zeroed); the sides
   * wake each other with {@code bell}, or poll if it is null.
   */
  SlotChannel(ByteBuffer control, Doorbell bell) {
    this.bell = bell;
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      throw new IllegalStateException("the Python bridge needs a little-endian machine");
    }
    this.control = control.order(ByteOrder.nativeOrder());
    LONGS.set(control, JVM_PID_AT, ProcessHandle.current().pid());
    INTS.set(control, VERSION_AT, VERSION);
    INTS.set(control, RING_AT_WORD, RING);
    INTS.setRelease(control, JVM_STATE_AT, RUNNING);
    LONGS.setRelease(control, 0, MAGIC);
  }

  /** At most {@code ahead} batches will be posted and not released at once. */
  void postsAhead(int ahead) {
    INTS.setRelease(control, AHEAD_AT, ahead);
  }

  /**
   * Posts batch {@code sequence} (its slot, rows and index): Python may read it from now on. The
   * caller posts in order and keeps fewer than {@link #RING} batches unreleased.
   */
  void post(long sequence, long slotOffset, int rows, int index) {
    int entry = RING_AT + (int) (sequence % RING) * ENTRY_BYTES;
    LONGS.set(control, entry, slotOffset);
    INTS.set(control, entry + 8, rows);
    INTS.set(control, entry + 12, index);
    LONGS.setRelease(control, POSTED_AT, sequence + 1);
    wakePython(sequence + 1);
  }

  /**
   * Rings if Python sleeps waiting for at most {@code posted} batches posted ({@code
   * Long.MAX_VALUE}: whatever it waits for, at the epoch's end, a failure or a stop); the fence
   * orders the word just written before the look.
   */
  private void wakePython(long posted) {
    if (bell == null) {
      return;
    }
    VarHandle.fullFence();
    int awaited = (int) INTS.getVolatile(control, PY_WAITING_AT);
    if (awaited != 0 && posted >= awaited) {
      bell.ring();
    }
  }

  /**
   * Waits until Python has released {@code count} batches (batches 0 to count - 1): true then;
   * false once Python closed its side (or its end of the doorbell went) or {@code stop} says so.
   * Spins briefly, yields the processor for up to {@link #YIELD_NANOS}, then sleeps on the
   * doorbell, or without one parks for growing times up to {@link #MAX_PARK_NANOS}. Spinning longer
   * would take the processor from the threads filling the next batches.
   */
  boolean awaitReleased(long count, BooleanSupplier stop) {
    return await(RELEASED_AT, true, JVM_WAITING_AT, count, stop);
  }

  /**
   * Waits until Python has asked for {@code count} epochs of this file (the one after the {@code
   * count - 1} ended so far): true then; false as {@link #awaitReleased} returns false.
   */
  boolean awaitEpochAsked(int count, BooleanSupplier stop) {
    return await(ASKED_AT, false, JVM_WAITING_EPOCH_AT, count, stop);
  }

  /**
   * Waits until the word at {@code at} (an int64 if {@code wide}, else an int32, written by Python)
   * reaches {@code count}, saying so in the int32 at {@code waitingAt} while it sleeps.
   */
  private boolean await(int at, boolean wide, int waitingAt, long count, BooleanSupplier stop) {
    long park = 10_000;
    long yieldUntil = 0;
    for (int spins = 0; ; spins++) {
      if (read(at, wide) >= count) {
        return true;
      }
      if (pythonClosed() || stop.getAsBoolean()) {
        return false;
      }
      if (spins < 100) {
        Thread.onSpinWait();
      } else if (yieldUntil == 0) {
        yieldUntil = System.nanoTime() + YIELD_NANOS;
      } else if (System.nanoTime() < yieldUntil) {
        Thread.yield();
      } else if (bell != null) {
        if (!sleepOnBell(at, wide, waitingAt, count)) {
          return false;
        }
      } else {
        LockSupport.parkNanos(park);
        park = Math.min(park * 2, MAX_PARK_NANOS);
      }
    }
  }

  private long read(int at, boolean wide) {
    return wide ? (long) LONGS.getVolatile(control, at) : (int) INTS.getVolatile(control, at);
  }

  /**
   * Says the JVM sleeps until the word at {@code at} reaches {@code count}, looks once more (the
   * fence orders the two), and sleeps on the bell: false if Python's side of it is gone.
   */
  private boolean sleepOnBell(int at, boolean wide, int waitingAt, long count) {
    INTS.setVolatile(control, waitingAt, (int) Math.min(count, Integer.MAX_VALUE));
    try {
      VarHandle.fullFence();
      if (read(at, wide) >= count || pythonClosed()) {
        return true;
      }
      return bell.await(BELL_WAIT_NANOS) || read(at, wide) >= count;
    } finally {
      INTS.setVolatile(control, waitingAt, 0);
    }
  }

  boolean pythonClosed() {
    return (int) INTS.getAcquire(control, PY_STATE_AT) == PY_CLOSED;
  }

  long released() {
    return (long) LONGS.getAcquire(control, RELEASED_AT);
  }

  /**
   * The {@code epochs}-th epoch of this file ended with {@code posted} batches posted in all: every
   * batch of it was posted.
   */
  void epochEnded(int epochs, long posted) {
    LONGS.setRelease(control, EPOCH_END_AT, posted);
    INTS.setRelease(control, EPOCHS_ENDED_AT, epochs);
    wakePython(Long.MAX_VALUE);
  }

  /** The stopping task ends the channel (if it had not ended or failed). */
  void stopped() {
    INTS.compareAndSet(control, JVM_STATE_AT, RUNNING, STOPPED);
    wakePython(Long.MAX_VALUE);
  }

  /** The rank failed: Python raises {@code message} at its next batch. */
  void failed(String message) {
    byte[] text = message.getBytes(StandardCharsets.UTF_8);
    int length = Math.min(text.length, ERROR_END - ERROR_AT);
    control.put(ERROR_AT, text, 0, length);
    INTS.set(control, ERROR_LENGTH_AT, length);
    INTS.setRelease(control, JVM_STATE_AT, FAILED);
    wakePython(Long.MAX_VALUE);
  }

  int state() {
    return (int) INTS.getAcquire(control, JVM_STATE_AT);
  }

  /** The time Python waited for batches so far, as it counts it (for the Stoker page). */
  long pythonWaitNanos() {
    return (long) LONGS.getOpaque(control, PY_WAIT_NANOS_AT);
  }

  /** The batches Python took so far, over all epochs (for the Stoker page). */
  long pythonTaken() {
    return (long) LONGS.getOpaque(control, PY_TAKEN_AT);
  }

  /** The rows of the batches Python took so far (for the Stoker page). */
  long pythonRows() {
    return (long) LONGS.getOpaque(control, PY_ROWS_AT);
  }

  /** The time Python spent on its batches so far, as it counts it (for the Stoker page). */
  long pythonStepNanos() {
    return (long) LONGS.getOpaque(control, PY_STEP_NANOS_AT);
  }
}
