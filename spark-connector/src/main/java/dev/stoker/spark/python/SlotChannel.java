package dev.stoker.spark.python;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The control block at the start of a rank's shared-memory file, and the JVM's side of it: the
 * JVM posts one batch at a time (where its slot is, how many rows, its index) and waits until
 * Python releases it; each word has one writer. The Python package reads the same layout
 * ({@code stoker/_channel.py}); {@link #VERSION} changes with it.
 *
 * <pre>
 * offset  type   writer  meaning
 *      0  int64  JVM     magic "STOKERPY" (little-endian)
 *      8  int32  JVM     layout version
 *     12  int32  JVM     JVM state: 1 running, 2 ended, 3 failed, 4 stopped (task over)
 *     16  int32  Python  Python state: 0 not attached, 1 attached, 2 closed (consumer stopped)
 *     20  int32  JVM     bytes of the error text at 128
 *     24  int64  JVM     batches posted (batch k is posted when this becomes k + 1)
 *     32  int64  Python  batches released (Python is done with batch k when this becomes k + 1)
 *     40  int64  JVM     the posted batch's slot: offset in the file
 *     48  int32  JVM     the posted batch's valid rows
 *     52  int32  JVM     the posted batch's index in its epoch
 *     56  int64  JVM     the JVM's process id
 *     64  int64  Python  the Python process id
 *    128  bytes  JVM     the error text (UTF-8), when failed
 * </pre>
 */
final class SlotChannel {
  static final long MAGIC = 0x5950_5245_4B4F_5453L; // "STOKERPY" read as little-endian bytes
  static final int VERSION = 1;
  /** Bytes of the control block: one page. */
  static final int BYTES = 4096;

  static final int RUNNING = 1;
  static final int ENDED = 2;
  static final int FAILED = 3;
  static final int STOPPED = 4;
  static final int PY_CLOSED = 2;

  private static final int VERSION_AT = 8;
  private static final int JVM_STATE_AT = 12;
  private static final int PY_STATE_AT = 16;
  private static final int ERROR_LENGTH_AT = 20;
  private static final int POSTED_AT = 24;
  private static final int RELEASED_AT = 32;
  private static final int SLOT_AT = 40;
  private static final int ROWS_AT = 48;
  private static final int INDEX_AT = 52;
  private static final int JVM_PID_AT = 56;
  private static final int ERROR_AT = 128;

  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final VarHandle INTS =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
  /** How long a wait yields the processor before it parks. */
  private static final long YIELD_NANOS = 2_000_000;
  /** Longest park between two looks at the released count. */
  private static final long MAX_PARK_NANOS = 1_000_000;

  private final ByteBuffer control;

  /** Writes a fresh control block into {@code control} (at least {@link #BYTES}, zeroed). */
  SlotChannel(ByteBuffer control) {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      throw new IllegalStateException("the Python bridge needs a little-endian machine");
    }
    this.control = control.order(ByteOrder.nativeOrder());
    LONGS.set(control, JVM_PID_AT, ProcessHandle.current().pid());
    INTS.set(control, VERSION_AT, VERSION);
    INTS.setRelease(control, JVM_STATE_AT, RUNNING);
    LONGS.setRelease(control, 0, MAGIC);
  }

  /** Posts batch {@code sequence} (its slot, rows and index): Python may read it from now on. */
  void post(long sequence, long slotOffset, int rows, int index) {
    LONGS.set(control, SLOT_AT, slotOffset);
    INTS.set(control, ROWS_AT, rows);
    INTS.set(control, INDEX_AT, index);
    LONGS.setRelease(control, POSTED_AT, sequence + 1);
  }

  /**
   * Waits until Python has released batch {@code sequence}: true then; false once Python closed
   * its side or {@code stop} says so. Spins briefly, then yields the processor for up to
   * {@link #YIELD_NANOS} (a release usually comes within a training step's time, and a parked
   * thread wakes tens of microseconds late), then parks for growing times up to 1 ms.
   */
  boolean awaitRelease(long sequence, BooleanSupplier stop) {
    long park = 20_000;
    long yieldUntil = 0;
    for (int spins = 0; ; spins++) {
      if ((long) LONGS.getAcquire(control, RELEASED_AT) > sequence) {
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
      } else {
        LockSupport.parkNanos(park);
        park = Math.min(park * 2, MAX_PARK_NANOS);
      }
    }
  }

  boolean pythonClosed() {
    return (int) INTS.getAcquire(control, PY_STATE_AT) == PY_CLOSED;
  }

  long released() {
    return (long) LONGS.getAcquire(control, RELEASED_AT);
  }

  /** The epoch ended: every batch was posted. */
  void ended() {
    INTS.setRelease(control, JVM_STATE_AT, ENDED);
  }

  /** The stopping task ends the channel (if it had not ended or failed). */
  void stopped() {
    INTS.compareAndSet(control, JVM_STATE_AT, RUNNING, STOPPED);
  }

  /** The rank failed: Python raises {@code message} at its next batch. */
  void failed(String message) {
    byte[] text = message.getBytes(StandardCharsets.UTF_8);
    int length = Math.min(text.length, BYTES - ERROR_AT);
    control.put(ERROR_AT, text, 0, length);
    INTS.set(control, ERROR_LENGTH_AT, length);
    INTS.setRelease(control, JVM_STATE_AT, FAILED);
  }

  int state() {
    return (int) INTS.getAcquire(control, JVM_STATE_AT);
  }
}
