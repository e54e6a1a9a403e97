package dev.stoker.loader.device;

import java.nio.ByteBuffer;

/**
 * The CUDA runtime calls the CUDA device makes, one method per call, each returning the call's
 * {@code cudaError_t} (0 is success) and writing its results into the arrays passed. Handles and
 * pointers are plain {@code long}s. {@link JCudaRuntime} makes the calls through JCuda; tests put a
 * fake of their own behind this interface, so every path above it runs without a GPU.
 */
interface CudaRuntime {
  /** {@code cudaSuccess}. */
  int SUCCESS = 0;

  /** {@code cudaErrorMemoryAllocation}. */
  int MEMORY_ALLOCATION = 2;

  /** {@code cudaErrorInsufficientDriver}: no driver, or one too old for the runtime. */
  int INSUFFICIENT_DRIVER = 35;

  /** {@code cudaErrorNoDevice}. */
  int NO_DEVICE = 100;

  /** {@code cudaErrorNotReady}: the answer of an event query whose work is still running. */
  int NOT_READY = 600;

  int getDeviceCount(int[] count);

  int driverGetVersion(int[] version);

  int setDevice(int ordinal);

  int getDevice(int[] ordinal);

  /**
   * {@code cudaHostAlloc(.., cudaHostAllocPortable)}: page-locked memory usable with every device.
   * On success {@code memory[0]} is a direct buffer over the block that derives from no other
   * buffer (so that every buffer derived from it keeps it reachable) and does not own the memory.
   */
  int hostAlloc(long bytes, long[] address, ByteBuffer[] memory);

  int freeHost(long address);

  int malloc(long[] address, long bytes);

  int free(long address);

  /** {@code cudaStreamCreateWithFlags(.., cudaStreamNonBlocking)}. */
  int streamCreateNonBlocking(long[] stream);

  int streamSynchronize(long stream);

  int streamDestroy(long stream);

  /** {@code cudaStreamWaitEvent(stream, event, 0)}. */
  int streamWaitEvent(long stream, long event);

  /** {@code cudaEventCreateWithFlags(.., cudaEventDisableTiming)}. */
  int eventCreate(long[] event);

  int eventRecord(long event, long stream);

  /** {@link #SUCCESS} when complete, {@link #NOT_READY} while not, else an error. */
  int eventQuery(long event);

  int eventSynchronize(long event);

  int eventDestroy(long event);

  /** {@code cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream)}. */
  int copyHostToDeviceAsync(long device, long host, long bytes, long stream);

  /** The error's name, e.g. {@code cudaErrorInsufficientDriver}. */
  String errorName(int code);
}
