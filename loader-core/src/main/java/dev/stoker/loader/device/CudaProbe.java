package dev.stoker.loader.device;

import java.util.function.Supplier;

/**
 * Finds out, once per JVM, whether CUDA can be used: loads JCuda (lazily: nothing else in Stoker
 * touches it) and asks {@code cudaGetDeviceCount}. With no driver that call returns {@code
 * cudaErrorInsufficientDriver} (35), which is the answer "no", not a failure.
 */
final class CudaProbe {
  /** A runtime and what probing it found. */
  record Result(CudaRuntime runtime, CudaAvailability availability) {}

  private static Result real;

  /** What the JVM's probe found, for messages of code that must not probe itself. */
  private static volatile String finding;

  private CudaProbe() {}

  /** The JVM's CUDA runtime and its devices, probed on the first call. */
  static synchronized Result real() {
    if (real == null) {
      real = probe(JCudaRuntime::new);
      finding = real.availability().describe();
    }
    return real;
  }

  /** What the JVM's probe found, or null if nothing asked yet. */
  static String finding() {
    return finding;
  }

  /** Loads a runtime with {@code loader} and asks it for its devices. */
  static Result probe(Supplier<CudaRuntime> loader) {
    CudaRuntime runtime;
    try {
      runtime = loader.get();
    } catch (NoClassDefFoundError e) {
      String message = String.valueOf(e.getMessage());
      return unavailable(
          null,
          -1,
          message.startsWith("Could not initialize")
              ? "JCuda failed to initialize earlier in this JVM: " + message
              : "JCuda is not on the classpath (add org.jcuda:jcuda:12.0.0): " + message);
    } catch (UnsatisfiedLinkError e) {
      String platform = System.getProperty("os.name") + " " + System.getProperty("os.arch");
      return unavailable(
          null,
          -1,
          "JCuda's native library could not be loaded on "
              + platform
              + " (add org.jcuda:jcuda-natives:12.0.0 with the classifier of the platform, e.g. "
              + "linux-x86_64, or put libJCudaRuntime-12.0.0-linux-x86_64.so on java.library.path): "
              + firstLine(e.getMessage()));
    } catch (RuntimeException | LinkageError e) {
      return unavailable(null, -1, "JCuda could not be loaded: " + e);
    }
    int[] count = new int[1];
    int code;
    try {
      code = runtime.getDeviceCount(count);
    } catch (RuntimeException | LinkageError e) {
      return unavailable(runtime, -1, "cudaGetDeviceCount failed: " + e);
    }
    if (code != CudaRuntime.SUCCESS) {
      String call =
          "cudaGetDeviceCount returned " + code + " (" + CudaCheck.nameOf(runtime, code) + ")";
      return unavailable(
          runtime,
          code,
          switch (code) {
            case CudaRuntime.INSUFFICIENT_DRIVER ->
                "no NVIDIA driver, or one older than CUDA 12.0 needs: " + call;
            case CudaRuntime.NO_DEVICE -> "no CUDA device" + visibleDevices() + ": " + call;
            default -> call;
          });
    }
    if (count[0] <= 0) {
      return unavailable(
          runtime, code, "no CUDA device" + visibleDevices() + ": cudaGetDeviceCount found 0");
    }
    int[] version = new int[1];
    int driver = runtime.driverGetVersion(version) == CudaRuntime.SUCCESS ? version[0] : 0;
    return new Result(runtime, new CudaAvailability(count[0], code, driver, null));
  }

  private static Result unavailable(CudaRuntime runtime, int code, String problem) {
    return new Result(runtime, new CudaAvailability(0, code, 0, problem));
  }

  /** {@code " (CUDA_VISIBLE_DEVICES='...')"} when that variable is set, else empty. */
  static String visibleDevices() {
    String visible = System.getenv("CUDA_VISIBLE_DEVICES");
    return visible == null ? "" : " (CUDA_VISIBLE_DEVICES='" + visible + "')";
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int end = message.indexOf('\n');
    return (end < 0 ? message : message.substring(0, end)).trim();
  }
}
