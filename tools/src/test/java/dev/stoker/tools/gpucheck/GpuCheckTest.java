package dev.stoker.tools.gpucheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.stoker.loader.device.CudaDevice;
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

/** The GPU check's main without a GPU, its arguments, the peer's protocol and the JSON. */
class GpuCheckTest {
  @TempDir Path dir;

  @Test
  void shouldSayThereIsNoGpuAndExitWithThree() throws IOException {
    assumeFalse(CudaDevice.availability().available());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int status =
        GpuCheck.run(
            new String[] {dir.resolve("out").toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(status).isEqualTo(GpuCheck.NO_GPU);
    String problem = CudaDevice.availability().problem();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo("gpu-check: no GPU: " + problem + System.lineSeparator());
    assertThat(Files.readString(dir.resolve("out/gpu-check.json")))
        .startsWith(
            "{\n"
                + "  \"gpu\": false,\n  \"problem\": \""
                + problem.replace("\"", "\\\"")
                + "\",\n");
  }

  @Test
  void shouldRefuseBadArgumentsWithTwo() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
    assertThat(GpuCheck.run(new String[0], print)).isEqualTo(GpuCheck.USAGE);
    assertThat(GpuCheck.run(new String[] {"a", "--device", "x"}, print)).isEqualTo(GpuCheck.USAGE);
    assertThat(GpuCheck.run(new String[] {"a", "--device"}, print)).isEqualTo(GpuCheck.USAGE);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("gpu-check: the output folder OUT is missing")
        .contains("gpu-check: --device: 'x' (expected: an ordinal)")
        .contains("gpu-check: --device: a value is missing");
  }

  @Test
  void shouldReadThePeersLinesAndItsReasonToSkip() throws IOException {
    Path script = dir.resolve("peer.py");
    Files.writeString(
        script,
        String.join(
            "\n",
            "import sys",
            "print('noise')",
            "print('torch version=2.3.0+cu121')",
            "print('torch step_ms=2.0 workers=4 prefetch=2 batches=200 samples_per_s=30000.5 "
                + "busy=0.9712')",
            "print('torch step_ms=0.5 workers=1 prefetch=2 batches=180 samples_per_s=9000 "
                + "busy=0.41')",
            "sys.stderr.write('to the log\\n')",
            ""));
    TorchPeer.Result ran =
        TorchPeer.run(
            "python3",
            script,
            dir.resolve("peer.log"),
            0,
            100,
            64,
            new double[] {2.0, 0.5},
            Overlap.standardConfigs(),
            1,
            2,
            30);
    assertThat(ran.ran()).isTrue();
    assertThat(ran.torchVersion()).isEqualTo("2.3.0+cu121");
    assertThat(ran.rows()).hasSize(2);
    assertThat(ran.rows().get(0))
        .satisfies(
            r -> {
              assertThat(r.feeder()).isEqualTo("torch");
              assertThat(r.stepMs()).isEqualTo(2.0);
              assertThat(r.config()).isEqualTo(new Overlap.Config(4, 2, 0));
              assertThat(r.samplesPerSecond()).isEqualTo(30000.5);
              assertThat(r.pipelineBound()).isFalse();
            });
    assertThat(ran.rows().get(1).pipelineBound()).isTrue();
    assertThat(Files.readString(dir.resolve("peer.log"))).isEqualTo("to the log\n");

    Files.writeString(script, "print('torch skipped=PyTorch_sees_no_CUDA_device')\n");
    TorchPeer.Result skipped =
        TorchPeer.run(
            "python3",
            script,
            dir.resolve("peer.log"),
            0,
            100,
            64,
            new double[] {2.0},
            Overlap.standardConfigs(),
            1,
            2,
            30);
    assertThat(skipped.ran()).isFalse();
    assertThat(skipped.reason()).isEqualTo("PyTorch sees no CUDA device");

    TorchPeer.Result missing =
        TorchPeer.run(
            "no-such-python-here",
            script,
            dir.resolve("peer.log"),
            0,
            100,
            64,
            new double[] {2.0},
            List.of(),
            1,
            2,
            30);
    assertThat(missing.ran()).isFalse();
    assertThat(missing.reason()).startsWith("no-such-python-here could not be started");
  }

  @Test
  void shouldSkipTheRealPeerCleanlyWhereItCannotRun() {
    Path script = Path.of("..", "scripts", "gpu_check_torch.py");
    assumeFalse(CudaDevice.availability().available());
    TorchPeer.Result peer =
        TorchPeer.run(
            "python3",
            script,
            dir.resolve("peer.log"),
            0,
            100,
            64,
            new double[] {2.0},
            Overlap.standardConfigs(),
            1,
            2,
            60);
    assertThat(peer.ran()).isFalse();
    assertThat(peer.reason())
        .isIn("PyTorch cannot be imported (ModuleNotFoundError)", "PyTorch sees no CUDA device");
  }

  @Test
  void shouldWriteJson() {
    assertThat(Json.write(Map.of("a", List.of(1, 2.5, true), "b", "x\"y\n")))
        .isIn(
            "{\n  \"a\": [\n    1,\n    2.5,\n    true\n  ],\n  \"b\": \"x\\\"y\\n\"\n}\n",
            "{\n  \"b\": \"x\\\"y\\n\",\n  \"a\": [\n    1,\n    2.5,\n    true\n  ]\n}\n");
    assertThat(Json.write(List.of(0.1234567891, 1e-3, Double.NaN, 30000.0)))
        .isEqualTo("[\n  0.123457,\n  0.001,\n  null,\n  30000\n]\n");
  }
}
