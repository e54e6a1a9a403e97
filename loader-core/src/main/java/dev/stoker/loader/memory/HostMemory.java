package dev.stoker.loader.memory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * One block of host memory with typed views over all of it, made once so that the hot path
 * allocates nothing. Views share the block's memory; an element index is a byte offset divided by
 * the element size. {@link #close()} frees the block (once).
 */
public abstract class HostMemory implements AutoCloseable {
  private final ByteBuffer bytes;
  private final FloatBuffer floats;
  private final IntBuffer ints;
  private final LongBuffer longs;
  private final DoubleBuffer doubles;
  private boolean freed;
  private Object attachment;

  protected HostMemory(ByteBuffer bytes) {
    this.bytes = bytes.order(ByteOrder.nativeOrder());
    this.floats = this.bytes.asFloatBuffer();
    this.ints = this.bytes.asIntBuffer();
    this.longs = this.bytes.asLongBuffer();
    this.doubles = this.bytes.asDoubleBuffer();
  }

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

  /** An object the owner of the block keeps with it (e.g. its batch view), so it is made once. */
  public final Object attachment() {
    return attachment;
  }

  public final void attach(Object value) {
    this.attachment = value;
  }

  /** Frees the block; a second call does nothing. The block must not be used afterwards. */
  @Override
  public final synchronized void close() {
    if (!freed) {
      freed = true;
      free();
    }
  }

  public final synchronized boolean isFreed() {
    return freed;
  }

  /** Releases the memory; called once. */
  protected abstract void free();
}
