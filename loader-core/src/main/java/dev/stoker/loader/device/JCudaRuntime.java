package dev.stoker.loader.device;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import jcuda.CudaException;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaError;
import jcuda.runtime.cudaEvent_t;
import jcuda.runtime.cudaStream_t;

/**
 * {@link CudaRuntime} through JCuda's runtime bindings (whose native library links the CUDA runtime
 * statically and needs only the driver). Handles travel as {@code long}s and are wrapped into
 * JCuda's objects per call. Works whether or not someone in the JVM turned JCuda's exceptions on: a
 * {@link CudaException} is turned back into its code.
 */
final class JCudaRuntime implements CudaRuntime {
  private static final VarHandle NATIVE_POINTER =
      field(NativePointerObject.class, "nativePointer", long.class);
  private static final VarHandle POINTER_BUFFER = field(Pointer.class, "buffer", Buffer.class);
  private static final int HOST_ALLOC_PORTABLE = JCuda.cudaHostAllocPortable;
  private static final int STREAM_NON_BLOCKING = JCuda.cudaStreamNonBlocking;
  private static final int EVENT_DISABLE_TIMING = JCuda.cudaEventDisableTiming;
  private static final int HOST_TO_DEVICE = jcuda.runtime.cudaMemcpyKind.cudaMemcpyHostToDevice;
  private static volatile Map<String, Integer> codesByName;

  /** Loads JCuda's native runtime library; throws {@link LinkageError} if it cannot. */
  JCudaRuntime() {
    JCuda.initialize();
  }

  @Override
  public int getDeviceCount(int[] count) {
    return call(() -> JCuda.cudaGetDeviceCount(count));
  }

  @Override
  public int driverGetVersion(int[] version) {
    return call(() -> JCuda.cudaDriverGetVersion(version));
  }

  @Override
  public int setDevice(int ordinal) {
    return call(() -> JCuda.cudaSetDevice(ordinal));
  }

  @Override
  public int getDevice(int[] ordinal) {
    return call(() -> JCuda.cudaGetDevice(ordinal));
  }

  @Override
  public int hostAlloc(long bytes, long[] address, ByteBuffer[] memory) {
    Pointer out = new Pointer();
    int code = call(() -> JCuda.cudaHostAlloc(out, bytes, HOST_ALLOC_PORTABLE));
    if (code == SUCCESS) {
      address[0] = pointerOf(out);
      // JCuda's own buffer over the block (from JNI's NewDirectByteBuffer), not one of the
      // slices getByteBuffer() makes: those would keep it, not themselves, reachable.
      memory[0] = (ByteBuffer) POINTER_BUFFER.get(out);
    }
    return code;
  }

  @Override
  public int freeHost(long address) {
    return call(() -> JCuda.cudaFreeHost(pointer(address)));
  }

  @Override
  public int malloc(long[] address, long bytes) {
    Pointer out = new Pointer();
    int code = call(() -> JCuda.cudaMalloc(out, bytes));
    address[0] = code == SUCCESS ? pointerOf(out) : 0;
    return code;
  }

  @Override
  public int free(long address) {
    return call(() -> JCuda.cudaFree(pointer(address)));
  }

  @Override
  public int streamCreateNonBlocking(long[] stream) {
    cudaStream_t out = new cudaStream_t();
    int code = call(() -> JCuda.cudaStreamCreateWithFlags(out, STREAM_NON_BLOCKING));
    stream[0] = code == SUCCESS ? pointerOf(out) : 0;
    return code;
  }

  @Override
  public int streamSynchronize(long stream) {
    return call(() -> JCuda.cudaStreamSynchronize(stream(stream)));
  }

  @Override
  public int streamDestroy(long stream) {
    return call(() -> JCuda.cudaStreamDestroy(stream(stream)));
  }

  @Override
  public int streamWaitEvent(long stream, long event) {
    return call(() -> JCuda.cudaStreamWaitEvent(stream(stream), event(event), 0));
  }

  @Override
  public int eventCreate(long[] event) {
    cudaEvent_t out = new cudaEvent_t();
    int code = call(() -> JCuda.cudaEventCreateWithFlags(out, EVENT_DISABLE_TIMING));
    event[0] = code == SUCCESS ? pointerOf(out) : 0;
    return code;
  }

  @Override
  public int eventRecord(long event, long stream) {
    return call(() -> JCuda.cudaEventRecord(event(event), stream(stream)));
  }

  @Override
  public int eventQuery(long event) {
    return call(() -> JCuda.cudaEventQuery(event(event)));
  }

  @Override
  public int eventSynchronize(long event) {
    return call(() -> JCuda.cudaEventSynchronize(event(event)));
  }

  @Override
  public int eventDestroy(long event) {
    return call(() -> JCuda.cudaEventDestroy(event(event)));
  }

  @Override
  public int copyHostToDeviceAsync(long device, long host, long bytes, long stream) {
    return call(
        () ->
            JCuda.cudaMemcpyAsync(
                pointer(device), pointer(host), bytes, HOST_TO_DEVICE, stream(stream)));
  }

  @Override
  public String errorName(int code) {
    return cudaError.stringFor(code);
  }

  /** A JCuda pointer to {@code address} (a host or device address). */
  static Pointer pointer(long address) {
    Pointer pointer = new Pointer();
    NATIVE_POINTER.set(pointer, address);
    return pointer;
  }

  static cudaStream_t stream(long handle) {
    cudaStream_t stream = new cudaStream_t();
    NATIVE_POINTER.set(stream, handle);
    return stream;
  }

  static cudaEvent_t event(long handle) {
    cudaEvent_t event = new cudaEvent_t();
    NATIVE_POINTER.set(event, handle);
    return event;
  }

  /** The native value of a JCuda handle or pointer. */
  static long pointerOf(NativePointerObject object) {
    return (long) NATIVE_POINTER.get(object);
  }

  /** Runs a call, turning the exception JCuda throws when its exceptions are on into the code. */
  private static int call(IntSupplier call) {
    try {
      return call.getAsInt();
    } catch (CudaException e) {
      return codeOf(e);
    }
  }

  private static int codeOf(CudaException e) {
    Map<String, Integer> codes = codesByName;
    if (codes == null) {
      codes = new HashMap<>();
      for (int code = 0; code < 1000; code++) {
        codes.putIfAbsent(cudaError.stringFor(code), code);
      }
      codesByName = codes;
    }
    String message = String.valueOf(e.getMessage());
    int space = message.indexOf(' ');
    Integer code = codes.get(space < 0 ? message : message.substring(0, space));
    return code != null ? code : cudaError.cudaErrorUnknown;
  }

  /** A private field of JCuda's (12.0.0): the one way to make its handles from plain values. */
  private static VarHandle field(Class<?> owner, String name, Class<?> type) {
    try {
      return MethodHandles.privateLookupIn(owner, MethodHandles.lookup())
          .findVarHandle(owner, name, type);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "JCuda "
              + jcuda.JCudaVersion.get()
              + ": field "
              + owner.getSimpleName()
              + "."
              + name
              + " not found (expected JCuda 12.0.0)",
          e);
    }
  }
}
