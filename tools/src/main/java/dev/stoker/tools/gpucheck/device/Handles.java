package dev.stoker.tools.gpucheck.device;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.runtime.cudaEvent_t;

/** JCuda's pointers and events made from, and read as, plain values. */
final class Handles {
  private static final VarHandle NATIVE_POINTER = nativePointer();

  private Handles() {}

  static Pointer pointer(long address) {
    Pointer pointer = new Pointer();
    NATIVE_POINTER.set(pointer, address);
    return pointer;
  }

  static cudaEvent_t event(long handle) {
    cudaEvent_t event = new cudaEvent_t();
    NATIVE_POINTER.set(event, handle);
    return event;
  }

  static long valueOf(NativePointerObject object) {
    return (long) NATIVE_POINTER.get(object);
  }

  private static VarHandle nativePointer() {
    try {
      return MethodHandles.privateLookupIn(NativePointerObject.class, MethodHandles.lookup())
          .findVarHandle(NativePointerObject.class, "nativePointer", long.class);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "JCuda: NativePointerObject.nativePointer not found " + "(expected JCuda 12.0.0)", e);
    }
  }
}
