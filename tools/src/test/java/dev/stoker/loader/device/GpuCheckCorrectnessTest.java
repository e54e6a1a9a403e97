package dev.stoker.loader.device;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.tools.gpucheck.Correctness;
import dev.stoker.tools.gpucheck.DeviceAccess;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The GPU check's correctness part, run on the fake runtime: it passes, and it can fail.
 *
 * <p>In loader-core's device package, from the tools' tests: the fake runtime (loader-core's
 * test-jar) and {@code CudaDevice.using} are that package's test seams, not public API.
 */
class GpuCheckCorrectnessTest {

  @Test
  void shouldPassEveryStandardCaseOnAFaithfulDevice() {
    FakeCudaRuntime runtime = new FakeCudaRuntime(1).copyDelay(20);
    List<Correctness.Result> results =
        Correctness.run(
            CudaDevice.using(runtime, 0), access(runtime, false), Correctness.standardCases(), 0);
    assertThat(results)
        .hasSize(4)
        .allSatisfy(
            r -> {
              assertThat(r.passed()).as(r.toString()).isTrue();
              assertThat(r.rowsChecked()).isPositive();
            });
    assertThat(results.get(1).config())
        .isEqualTo("uint8[1,28,28] + int32, batch 7, 0 workers, pinned, depth 1");
    assertThat(runtime.deviceBytes()).isZero();
    assertThat(runtime.pinnedBytes()).isZero();
  }

  @Test
  void shouldFindARowThatDiffersFromItsSample() {
    FakeCudaRuntime runtime = new FakeCudaRuntime(1);
    List<Correctness.Result> results =
        Correctness.run(
            CudaDevice.using(runtime, 0),
            access(runtime, true),
            Correctness.standardCases().subList(1, 2),
            0);
    assertThat(results)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.passed()).isFalse();
              assertThat(r.mismatches()).isPositive();
              assertThat(r.firstMismatch())
                  .matches("epoch 0 batch 0 row 0 \\(sample \\d+\\) field " + "'pixels' element 3");
            });
  }

  /** Reads the fake's device memory; {@code corrupt} flips the fourth byte of each read. */
  private static DeviceAccess access(FakeCudaRuntime runtime, boolean corrupt) {
    return new DeviceAccess() {
      @Override
      public void copyToHost(long address, byte[] target) {
        byte[] read = runtime.read(address, target.length);
        System.arraycopy(read, 0, target, 0, read.length);
        if (corrupt) {
          target[3] ^= 1;
        }
      }

      @Override
      public long usedBytes() {
        return runtime.deviceBytes();
      }
    };
  }
}
