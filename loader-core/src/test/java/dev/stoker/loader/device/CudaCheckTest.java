package dev.stoker.loader.device;

import static org.assertj.core.api.Assertions.assertThat;

import jcuda.runtime.JCuda;
import org.junit.jupiter.api.Test;

/** Error codes and their messages, and the JCuda binding's handles, without a GPU. */
class CudaCheckTest {
  private final FakeCudaRuntime fake = new FakeCudaRuntime(1);

  @Test
  void shouldNameTheCallTheCodeItsNameAndThePlace() {
    CudaCallException e =
        CudaCheck.failure(
            fake,
            700,
            "cudaMemcpyAsync",
            "4096 bytes into device buffer 1 of 3",
            "cuda:0, loader 'train'");
    assertThat(e)
        .hasMessage(
            "cudaMemcpyAsync returned 700 (cudaErrorIllegalAddress) for 4096 "
                + "bytes into device buffer 1 of 3 on cuda:0, loader 'train'");
    assertThat(e.call()).isEqualTo("cudaMemcpyAsync");
    assertThat(e.code()).isEqualTo(700);
    assertThat(e.codeName()).isEqualTo("cudaErrorIllegalAddress");
  }

  @Test
  void shouldSayWhatToDoAboutTheErrorsAUserCanActOn() {
    assertThat(
            CudaCheck.failure(
                fake, 2, "cudaMalloc", "device buffer 3 of 4 (64 bytes)", "cuda:1, loader 'x'"))
        .hasMessage(
            "cudaMalloc returned 2 (cudaErrorMemoryAllocation) for "
                + "device buffer 3 of 4 (64 bytes) on cuda:1, loader 'x': the GPU is out of memory; lower "
                + "transferDepth or batchSize, or free GPU memory");
    assertThat(CudaCheck.failure(fake, 35, "cudaSetDevice", "", "cuda:0"))
        .hasMessage(
            "cudaSetDevice returned 35 (cudaErrorInsufficientDriver) on cuda:0: no "
                + "NVIDIA driver, or one older than CUDA 12.0 needs; install one, or load on the CPU "
                + "device");
  }

  @Test
  void shouldPassSuccessSilently() {
    CudaCheck.check(fake, CudaRuntime.SUCCESS, "cudaFree", "x", "cuda:0");
  }

  @Test
  void shouldNameCodesWithJCudasTable() {
    JCudaRuntime real = new JCudaRuntime();
    assertThat(real.errorName(35)).isEqualTo("cudaErrorInsufficientDriver");
    assertThat(real.errorName(600)).isEqualTo("cudaErrorNotReady");
    assertThat(CudaCheck.nameOf(real, 700)).isEqualTo("cudaErrorIllegalAddress");
  }

  @Test
  void shouldCarryHandlesAndPointersAsPlainValues() {
    assertThat(JCudaRuntime.pointerOf(JCudaRuntime.pointer(0x7f00_1234_5000L)))
        .isEqualTo(0x7f00_1234_5000L);
    assertThat(JCudaRuntime.pointerOf(JCudaRuntime.event(0xabcdefL))).isEqualTo(0xabcdefL);
    assertThat(JCudaRuntime.pointerOf(JCudaRuntime.stream(42L))).isEqualTo(42L);
  }

  @Test
  void shouldReturnCodesEvenWhenJCudasExceptionsAreOn() {
    JCudaRuntime real = new JCudaRuntime();
    int[] count = new int[1];
    int expected = real.getDeviceCount(count);
    JCuda.setExceptionsEnabled(true);
    try {
      assertThat(real.getDeviceCount(count)).isEqualTo(expected);
      if (expected != CudaRuntime.SUCCESS) {
        assertThat(real.setDevice(0)).isEqualTo(expected);
      }
    } finally {
      JCuda.setExceptionsEnabled(false);
    }
  }
}
