package dev.stoker.loader.device;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.tools.gpucheck.Correctness;
import dev.stoker.tools.gpucheck.GpuCheck;
import dev.stoker.tools.gpucheck.Overlap;
import dev.stoker.tools.gpucheck.Plan;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole GPU check, small, on the fake runtime: every part runs through the real loader and the
 * report comes out whole, so a run on a real GPU fails only where the GPU itself differs.
 *
 * <p>In loader-core's device package, from the tools' tests: the fake runtime (loader-core's
 * test-jar) and {@code CudaDevice.using} are that package's test seams, not public API.
 */
class GpuCheckRehearsalTest {
  @TempDir Path dir;

  @Test
  void shouldRunEveryPartAndWriteTheJsonAndTheTable() throws IOException {
    FakeCudaRuntime runtime = new FakeCudaRuntime(1);
    CudaDevice device = CudaDevice.using(runtime, 0);
    Plan plan =
        new Plan(
            Correctness.standardCases().subList(0, 2),
            0,
            1,
            2,
            640,
            64,
            new double[] {0.2},
            List.of(new Overlap.Config(1, 2, 1), new Overlap.Config(2, 2, 2)),
            2,
            5,
            60,
            120);
    Path peer = dir.resolve("peer.py");
    Files.writeString(
        peer,
        "print('torch version=2.3.0')\n"
            + "print('torch step_ms=0.2 workers=2 prefetch=2 batches=5 samples_per_s=100 "
            + "busy=0.5')\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    int status =
        GpuCheck.check(
            device,
            new FakeGpu(runtime),
            plan,
            Map.of("--torch-script", peer.toString()),
            dir,
            new PrintStream(out, true, StandardCharsets.UTF_8));

    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(status).as(printed).isEqualTo(GpuCheck.PASSED);
    assertThat(printed)
        .contains(
            "gpu-check: Fake GPU (sm_00); 1/4 correctness",
            "Stoker GPU check: Fake GPU (sm_00) (cuda:0), driver for CUDA 12.4",
            "   PASS images ",
            "   PASS pixels ",
            "2. bandwidth, host to device, 16 MiB batches",
            "raw cudaMemcpyAsync: pinned 50.0 GB/s back to back, 45.0 waiting after each; "
                + "pageable 20.0",
            "   stoker     0.20       1        2     1 ",
            "4. peer: PyTorch DataLoader (pin_memory=True, non_blocking=True), same workload and "
                + "step: torch 2.3.0",
            "   torch      0.20       2        2     -        100  0.500  pipeline-bound",
            "PASSED in ");
    String json = Files.readString(dir.resolve("gpu-check.json"));
    assertThat(json)
        .contains(
            "\"gpu\": true",
            "\"correctness\": {",
            "\"passed\": true",
            "\"bandwidth\": {",
            "\"raw_pinned_gbps\": 50",
            "\"overlap\": {",
            "\"load_only\": [",
            "\"feeder\": \"stoker\"",
            "\"gpu_busy\": ",
            "\"peer\": {",
            "\"status\": \"ran\"",
            "\"targets\": {",
            "\"samples_per_s_at_least_torch\": [",
            "\"errors\": []");
    assertThat(Files.readString(dir.resolve("gpu-check.txt")))
        .isEqualTo(printed.substring(printed.indexOf("Stoker GPU check:")));
    assertThat(runtime.deviceBytes()).isZero();
    assertThat(runtime.liveEvents()).isZero();
    assertThat(runtime.liveStreams()).isZero();
  }
}
