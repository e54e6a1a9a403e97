package dev.stoker.loader.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.stoker.loader.memory.HostAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Probing for CUDA, on this machine for real and on fakes: what is found and what is said. */
class CudaProbeTest {

  @Test
  void shouldFindNoDriverHereAndSayHowToLoadOnTheCpu() {
    CudaAvailability found = CudaDevice.availability();
    assumeFalse(found.available(), "this machine has a GPU: " + found.describe());

    assertThat(found.deviceCount()).isZero();
    if (found.code() == CudaRuntime.INSUFFICIENT_DRIVER) {
      assertThat(found.problem())
          .isEqualTo(
              "no NVIDIA driver, or one older than CUDA 12.0 "
                  + "needs: cudaGetDeviceCount returned 35 (cudaErrorInsufficientDriver)");
    }
    assertThatThrownBy(() -> CudaDevice.forAddress("0"))
        .isInstanceOfSatisfying(
            CudaUnavailableException.class, e -> assertThat(e.availability()).isEqualTo(found))
        .hasMessage(
            "CUDA device for GPU address '0' is not available: "
                + found.problem()
                + ". To load on the CPU, leave the device out (the CPU device is the default) or use "
                + "CudaDevice.forAddressOrCpu(address), which falls back to it with a warning");
    assertThatThrownBy(() -> CudaDevice.of(0)).isInstanceOf(CudaUnavailableException.class);
  }

  @Test
  void shouldFallBackToTheCpuWhereCudaCannotBeUsed() {
    assumeFalse(CudaDevice.availability().available());
    Device device = CudaDevice.forAddressOrCpu("0");
    assertThat(device).isSameAs(CpuDevice.INSTANCE);
    HostAllocator allocator = device.hostAllocator("fallback", 1 << 20, true);
    assertThat(allocator.pinned()).as("pinMemory without CUDA: direct memory").isFalse();
    allocator.close();
  }

  @Test
  void shouldUseTheCpuWhenNoGpuIsAssigned() {
    assertThat(CudaDevice.forAddressOrCpu(null)).isSameAs(CpuDevice.INSTANCE);
    assertThat(CudaDevice.forAddressOrCpu(" ")).isSameAs(CpuDevice.INSTANCE);
  }

  @Test
  void shouldFindTheDevicesOfAWorkingRuntime() {
    CudaAvailability found = CudaProbe.probe(() -> new FakeCudaRuntime(2)).availability();
    assertThat(found.available()).isTrue();
    assertThat(found.deviceCount()).isEqualTo(2);
    assertThat(found.describe()).isEqualTo("2 CUDA devices (driver for CUDA 12.4)");
    CudaDevice device = CudaDevice.using(new FakeCudaRuntime(2), 1);
    assertThat(device.name()).isEqualTo("cuda:1");
    assertThat(device.ordinal()).isEqualTo(1);
    assertThat(device.isHost()).isFalse();
  }

  @Test
  void shouldSayWhenTheDriverIsMissing() {
    FakeCudaRuntime runtime = new FakeCudaRuntime(1);
    runtime.fail("cudaGetDeviceCount", CudaRuntime.INSUFFICIENT_DRIVER, 0, 1);
    assertThat(CudaProbe.probe(() -> runtime).availability().problem())
        .isEqualTo(
            "no NVIDIA driver, or one older than CUDA 12.0 needs: cudaGetDeviceCount returned 35 "
                + "(cudaErrorInsufficientDriver)");
    runtime.fail("cudaGetDeviceCount", CudaRuntime.INSUFFICIENT_DRIVER, 0, 1);
    assertThatThrownBy(() -> CudaDevice.using(runtime, 0))
        .isInstanceOf(CudaUnavailableException.class)
        .hasMessageStartingWith(
            "CUDA device for GPU address '0' is not available: no NVIDIA " + "driver");
  }

  @Test
  void shouldSayWhenThereIsNoDevice() {
    FakeCudaRuntime none = new FakeCudaRuntime(0);
    assertThat(CudaProbe.probe(() -> none).availability().problem())
        .startsWith("no CUDA device")
        .endsWith(": cudaGetDeviceCount found 0");
    FakeCudaRuntime refused = new FakeCudaRuntime(1);
    refused.fail("cudaGetDeviceCount", CudaRuntime.NO_DEVICE, 0, 1);
    assertThat(CudaProbe.probe(() -> refused).availability().problem())
        .startsWith("no CUDA device")
        .endsWith(": cudaGetDeviceCount returned 100 (cudaErrorNoDevice)");
  }

  @Test
  void shouldSayWhichLibraryIsMissing() {
    CudaAvailability natives =
        CudaProbe.probe(
                () -> {
                  throw new UnsatisfiedLinkError(
                      "Error while loading native library \"JCudaRuntime\"\nmore");
                })
            .availability();
    assertThat(natives.code()).isEqualTo(-1);
    assertThat(natives.problem())
        .startsWith("JCuda's native library could not be loaded on ")
        .contains("add org.jcuda:jcuda-natives:12.0.0 with the classifier of the platform")
        .endsWith(": Error while loading native library \"JCudaRuntime\"");
    CudaAvailability jar =
        CudaProbe.probe(
                () -> {
                  throw new NoClassDefFoundError("jcuda/runtime/JCuda");
                })
            .availability();
    assertThat(jar.problem())
        .isEqualTo(
            "JCuda is not on the classpath (add " + "org.jcuda:jcuda:12.0.0): jcuda/runtime/JCuda");
  }

  @ParameterizedTest(name = "''{0}''")
  @ValueSource(strings = {"", "x", "-1", "0.5", "gpu0", "12345"})
  void shouldRefuseAnAddressThatIsNoOrdinal(String address) {
    assertThatThrownBy(() -> CudaDevice.forAddressOrCpu(address.isEmpty() ? "?" : address))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("GPU address: '")
        .hasMessageEndingWith(
            "' (expected: a device ordinal such as \"0\", as Spark's \"gpu\" " + "resource gives)");
  }

  @Test
  void shouldRefuseAnOrdinalBeyondTheDevicesFound() {
    assertThatThrownBy(() -> CudaDevice.using(new FakeCudaRuntime(2), 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "GPU address: '2' (expected: 0..1, the 2 CUDA device(s) this " + "process sees");
  }

  @Test
  void shouldRefuseAllocatorsAndEnginesOnceClosed() {
    CudaDevice device = CudaDevice.using(new FakeCudaRuntime(1), 0);
    device.close();
    assertThatThrownBy(() -> device.hostAllocator("x", 64, true))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("device cuda:0 is closed");
    assertThatThrownBy(() -> device.openTransfer(new TransferSpec("x", 64, 1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("device cuda:0 is closed");
  }
}
