package dev.stoker.loader.memory;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/** Reads the native address of a direct buffer and frees direct buffers at once, via Unsafe. */
final class NativeAddress {
  private static final sun.misc.Unsafe UNSAFE = findUnsafe();
  private static final long ADDRESS_OFFSET = addressOffset();

  private NativeAddress() {}

  /** The address of {@code direct}'s first byte, or 0 where the JVM does not let us read it. */
  static long of(ByteBuffer direct) {
    if (UNSAFE == null || ADDRESS_OFFSET < 0 || !direct.isDirect()) {
      return 0;
    }
    return UNSAFE.getLong(direct, ADDRESS_OFFSET);
  }

  /** Frees a direct buffer made by {@code ByteBuffer.allocateDirect} now; false if not possible. */
  static boolean free(ByteBuffer allocated) {
    if (UNSAFE == null) {
      return false; // the garbage collector frees it in its own time
    }
    UNSAFE.invokeCleaner(allocated);
    return true;
  }

  private static sun.misc.Unsafe findUnsafe() {
    try {
      Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      return (sun.misc.Unsafe) field.get(null);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  @SuppressWarnings("deprecation") // objectFieldOffset: the only way to Buffer.address on Java 17
  private static long addressOffset() {
    if (UNSAFE == null) {
      return -1;
    }
    try {
      return UNSAFE.objectFieldOffset(Buffer.class.getDeclaredField("address"));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return -1;
    }
  }
}
