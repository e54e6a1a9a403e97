package dev.stoker.loader.device;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostAllocator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A CUDA GPU, through JCuda (loaded on first use, and probed once per JVM). A loader on it gets
 * page-locked host slots with {@code pinMemory} ({@code cudaHostAlloc}; direct memory without), and
 * a transfer engine of its own: a non-blocking copy stream, {@code transferDepth + 2} device
 * buffers made once, {@code cudaMemcpyAsync} from each filled slot and an event after it.
 *
 * <pre>{@code
 * try (CudaDevice gpu = CudaDevice.forAddress("0");          // Spark's "gpu" resource address
 *      DataLoader loader = DataLoader.builder(dataset).options(options).device(gpu).build()) {
 *   for (Batch batch : loader) {
 *     DeviceColumn images = batch.deviceColumn("image");   // device pointer, dtype, shape
 *     long copied = batch.deviceEvent().handle();          // cudaStreamWaitEvent(myStream, copied)
 *     ...                                                  // the step, on myStream
 *     batch.deviceBuffer().reuseAfter(stepDone);           // an event recorded after the step
 *   }
 * }
 * }</pre>
 *
 * <p>Asking for a device where CUDA cannot be used is a {@link CudaUnavailableException} that says
 * what was found; {@link #forAddressOrCpu} falls back to the CPU device instead.
 */
public final class CudaDevice implements Device {
  private static final Logger LOG = LoggerFactory.getLogger(CudaDevice.class);
  private static final AtomicBoolean FALLBACK_WARNED = new AtomicBoolean();

  private final CudaRuntime runtime;
  private final DeviceBinding binding;
  private final AtomicLong pinnedBytes = new AtomicLong();
  private final AtomicLong deviceBytes = new AtomicLong();
  private volatile boolean closed;

  private CudaDevice(CudaRuntime runtime, int ordinal) {
    this.runtime = runtime;
    this.binding = new DeviceBinding(runtime, ordinal);
  }

  /** Whether CUDA can be used in this JVM, and how many devices it has; probes on first call. */
  public static CudaAvailability availability() {
    return CudaProbe.real().availability();
  }

  /**
   * CUDA device {@code ordinal}.
   *
   * @throws CudaUnavailableException if CUDA cannot be used here
   * @throws IllegalArgumentException if there is no such device
   */
  public static CudaDevice of(int ordinal) {
    return of(CudaProbe.real(), ordinal, String.valueOf(ordinal));
  }

  /**
   * The device a Spark task's GPU address names: {@code "0"}, {@code "1"}, ... (the addresses of
   * the {@code gpu} resource, {@code TaskContext.resources().get("gpu").addresses()}).
   *
   * @throws CudaUnavailableException if CUDA cannot be used here
   * @throws IllegalArgumentException if the address is not a device ordinal of this machine
   */
  public static CudaDevice forAddress(String address) {
    return of(CudaProbe.real(), parseAddress(address), address);
  }

  /**
   * Like {@link #forAddress}, but the CPU device when {@code address} is null or empty (no GPU
   * assigned), or when CUDA cannot be used here; the latter says so in one warning per JVM (and
   * {@code pinMemory} then falls back to direct memory with the CPU device's one warning).
   *
   * @throws IllegalArgumentException if CUDA works but the address names no device of it
   */
  public static Device forAddressOrCpu(String address) {
    if (address == null || address.isBlank()) {
      return CpuDevice.INSTANCE;
    }
    int ordinal = parseAddress(address);
    CudaProbe.Result probe = CudaProbe.real();
    if (!probe.availability().available()) {
      if (FALLBACK_WARNED.compareAndSet(false, true)) {
        LOG.warn(
            "GPU address '{}' was assigned, but CUDA cannot be used here ({}): loading on "
                + "the CPU device",
            address,
            probe.availability().describe());
      }
      return CpuDevice.INSTANCE;
    }
    return of(probe, ordinal, address);
  }

  /** A device on {@code runtime} (a fake, in tests), probed like the real one. */
  static CudaDevice using(CudaRuntime runtime, int ordinal) {
    return of(CudaProbe.probe(() -> runtime), ordinal, String.valueOf(ordinal));
  }

  private static CudaDevice of(CudaProbe.Result probe, int ordinal, String address) {
    CudaAvailability found = probe.availability();
    if (!found.available()) {
      throw new CudaUnavailableException(
          "CUDA device for GPU address '"
              + address
              + "' is not "
              + "available: "
              + found.describe()
              + ". To load on the CPU, leave the device out "
              + "(the CPU device is the default) or use CudaDevice.forAddressOrCpu(address), which "
              + "falls back to it with a warning",
          found);
    }
    if (ordinal < 0 || ordinal >= found.deviceCount()) {
      throw new IllegalArgumentException(
          "GPU address: '"
              + address
              + "' (expected: 0.."
              + (found.deviceCount() - 1)
              + ", the "
              + found.deviceCount()
              + " CUDA device(s) this "
              + "process sees"
              + CudaProbe.visibleDevices()
              + ")");
    }
    return new CudaDevice(probe.runtime(), ordinal);
  }

  private static int parseAddress(String address) {
    String trimmed = address == null ? "" : address.trim();
    if (trimmed.isEmpty()
        || trimmed.length() > 4
        || !trimmed.chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException(
          "GPU address: '"
              + address
              + "' (expected: a device "
              + "ordinal such as \"0\", as Spark's \"gpu\" resource gives)");
    }
    return Integer.parseInt(trimmed);
  }

  /** The device's ordinal in this process (as {@code cudaSetDevice} takes it). */
  public int ordinal() {
    return binding.ordinal();
  }

  @Override
  public String name() {
    return binding.deviceName();
  }

  @Override
  public boolean isHost() {
    return false;
  }

  /**
   * Page-locked memory with {@code pinMemory}, so copies run asynchronously; direct (pageable)
   * memory without, which CUDA copies through a staging buffer while the transfer thread waits.
   */
  @Override
  public HostAllocator hostAllocator(String name, long limit, boolean pinMemory) {
    checkOpen();
    return pinMemory
        ? new PinnedAllocator(name, limit, runtime, binding, pinnedBytes)
        : new DirectAllocator(name, limit);
  }

  @Override
  public TransferEngine openTransfer(TransferSpec spec) {
    checkOpen();
    return CudaTransferEngine.open(runtime, binding, spec, deviceBytes);
  }

  /** Page-locked host bytes this device's allocators hold (not yet freed). */
  public long pinnedBytes() {
    return pinnedBytes.get();
  }

  /** Device bytes this device's transfer engines hold (not yet freed). */
  public long deviceBytes() {
    return deviceBytes.get();
  }

  /**
   * Stops handing out allocators and engines; those handed out stay with their loaders, which free
   * them when they close.
   */
  @Override
  public void close() {
    closed = true;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("device " + name() + " is closed");
    }
  }

  @Override
  public String toString() {
    return name();
  }
}
