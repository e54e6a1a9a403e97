package dev.stoker.loader.memory;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;

/**
 * Host memory from direct byte buffers, freed at once on close rather than whenever the garbage
 * collector gets to it. Counts against {@code -XX:MaxDirectMemorySize}.
 */
public final class DirectAllocator implements HostAllocator {
  /** The shared instance; it holds no state. */
  public static final DirectAllocator INSTANCE = new DirectAllocator();

  private static final int ALIGNMENT = 64;
  private static final sun.misc.Unsafe UNSAFE = findUnsafe();

  private DirectAllocator() {}

  @Override
  public String name() {
    return "direct";
  }

  @Override
  public boolean pinned() {
    return false;
  }

  @Override
  public HostMemory allocate(int bytes) {
    if (bytes <= 0 || bytes > Integer.MAX_VALUE - ALIGNMENT) {
      throw new IllegalArgumentException(
          "bytes: " + bytes + " (expected: 0 < bytes <= " + (Integer.MAX_VALUE - ALIGNMENT) + ")");
    }
    ByteBuffer raw = ByteBuffer.allocateDirect(bytes + ALIGNMENT);
    // Skip to the first aligned address and take exactly `bytes` from there. (alignedSlice would
    // also round the end down, leaving fewer than `bytes` unless bytes is a multiple of 64.)
    int skip = (ALIGNMENT - raw.alignmentOffset(0, ALIGNMENT)) % ALIGNMENT;
    ByteBuffer aligned = raw.slice(skip, bytes);
    return new DirectMemory(raw, aligned);
  }

  private static sun.misc.Unsafe findUnsafe() {
    try {
      Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      return (sun.misc.Unsafe) field.get(null);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null; // without it, the garbage collector frees direct buffers in its own time
    }
  }

  private static final class DirectMemory extends HostMemory {
    private final ByteBuffer raw;

    DirectMemory(ByteBuffer raw, ByteBuffer aligned) {
      super(aligned);
      this.raw = raw;
    }

    @Override
    protected void free() {
      if (UNSAFE != null) {
        UNSAFE.invokeCleaner(raw);
      }
    }
  }
}
