package dev.stoker.loader.memory;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * One block of host memory. Its owner works through {@link #bytes()} and the typed views, made once
 * so that the hot path allocates nothing; code outside the owner gets {@link #view()}s.
 *
 * <p>Freeing is safe by construction: {@link #close()} frees the memory at once only if no view was
 * ever handed out. Once one was, closing only lets go of the block, and the memory is freed when
 * the last view of it has become unreachable, so a view kept past its time can show stale data but
 * can never read freed memory.
 */
public abstract class HostMemory implements AutoCloseable {
  private static final Cleaner CLEANER =
      Cleaner.create(
          runnable -> {
            Thread thread = new Thread(runnable, "stoker-host-memory-cleaner");
            thread.setDaemon(true);
            return thread;
          });

  private final ByteBuffer bytes;
  private final FloatBuffer floats;
  private final IntBuffer ints;
  private final LongBuffer longs;
  private final DoubleBuffer doubles;
  private final long address;
  private final Cleaner.Cleanable release;
  private volatile boolean exposed;

  /** The view {@link #writerView()} hands out, made once. */
  private ByteBuffer writerView;

  private boolean closed;

  /**
   * @param root the buffer every view of the block derives from: the memory may be freed once it is
   *     unreachable
   * @param bytes the block itself, within {@code root}
   * @param address the native address of {@code bytes}' first byte
   * @param onUnreachable frees the memory (or accounts for its freeing); must not refer to {@code
   *     root} or {@code bytes}. Runs once: on {@link #close()} of a block never viewed, or when
   *     {@code root} has become unreachable
   */
  protected HostMemory(ByteBuffer root, ByteBuffer bytes, long address, Runnable onUnreachable) {
    this.bytes = bytes.order(ByteOrder.nativeOrder());
    this.floats = this.bytes.asFloatBuffer();
    this.ints = this.bytes.asIntBuffer();
    this.longs = this.bytes.asLongBuffer();
    this.doubles = this.bytes.asDoubleBuffer();
    this.address = address;
    this.release = CLEANER.register(root, onUnreachable);
  }

  /**
   * The block's own buffer, native order, position 0, limit = size: for the block's owner, which
   * uses absolute access only and never hands it out (hand out {@link #view()}s instead).
   */
  public final ByteBuffer bytes() {
    return bytes;
  }

  public final FloatBuffer floats() {
    return floats;
  }

  public final IntBuffer ints() {
    return ints;
  }

  public final LongBuffer longs() {
    return longs;
  }

  public final DoubleBuffer doubles() {
    return doubles;
  }

  /**
   * A new view of the whole block with its own position, limit and byte order (native at first).
   * The block is from now on freed only when no view of it is reachable.
   */
  public final ByteBuffer view() {
    exposed = true;
    return bytes.duplicate().order(ByteOrder.nativeOrder());
  }

  /**
   * One view of the whole block, made once and reset (position 0, limit = size, native order) on
   * every call: for the one writer the block has at a time, so that writing through a view
   * allocates nothing. Marks the block as viewed, like {@link #view()}.
   */
  public final synchronized ByteBuffer writerView() {
    if (writerView == null) {
      writerView = view();
    }
    writerView.clear();
    return writerView.order(ByteOrder.nativeOrder());
  }

  /** {@link #view()}, read-only. */
  public final ByteBuffer readOnlyView() {
    exposed = true;
    return bytes.asReadOnlyBuffer().order(ByteOrder.nativeOrder());
  }

  /**
   * The native address of the first byte, for code that hands the block to native readers or
   * writers (e.g. off-heap column vectors). Such code must stop using the address before the
   * block's owner lets go of it: an address, unlike a view, does not keep the memory alive.
   */
  public final long address() {
    return address;
  }

  public final int size() {
    return bytes.capacity();
  }

  /** Sets {@code length} bytes from {@code offset} to zero. */
  public final void zero(int offset, int length) {
    int end = offset + length;
    int i = offset;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      bytes.putLong(i, 0L);
    }
    for (; i < end; i++) {
      bytes.put(i, (byte) 0);
    }
  }

  /**
   * Lets go of the block: frees it now if no view was handed out, else once none is reachable. A
   * second call does nothing. The owner must not use the block afterwards.
   */
  @Override
  public final void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    onClosed();
    if (!exposed) {
      freeNow();
      release.clean();
    }
  }

  public final synchronized boolean isClosed() {
    return closed;
  }

  /** Called once by the first {@link #close()}, whether or not the memory is freed now. */
  protected void onClosed() {}

  /**
   * Frees the memory at once, before the {@code onUnreachable} action runs; called only for a block
   * that was never viewed. The default does nothing (the action frees).
   */
  protected void freeNow() {}
}
