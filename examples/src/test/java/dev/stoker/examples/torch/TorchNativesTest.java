package dev.stoker.examples.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.bytedeco.openblas.global.openblas_full;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The first load on a fresh machine: a JVM of its own with an empty JavaCPP cache, as after a new
 * install, where Debian's PyTorch 1.13 may sit in the system's library folders.
 */
class TorchNativesTest {
  /** What Debian's libtorch-dev installs, which the dynamic linker finds by its plain name. */
  private static final Path DEBIAN_LIBTORCH = Path.of("/usr/lib/x86_64-linux-gnu/libtorch_cpu.so");

  private Path folder;

  @BeforeEach
  void makeFolder() throws IOException {
    folder = Files.createTempDirectory("stoker-javacpp-");
  }

  @AfterEach
  void removeFolder() throws IOException {
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }

  @Test
  void shouldLoadFromAnEmptyCache() throws Exception {
    Path cache = folder.resolve("cache");

    Result result = child(cache, "natives");

    assertThat(result.output()).contains("sum 6.0");
    assertThat(result.exitCode()).isZero();
    assertThat(
            cache.resolve(
                "pytorch-2.10.0-1.5.13-linux-x86_64.jar/org/bytedeco/pytorch/"
                    + "linux-x86_64/libtorch_cpu.so"))
        .isRegularFile();
  }

  @Test
  void shouldLoadFromACacheFilledByAnEarlierRun() throws Exception {
    Path cache = folder.resolve("cache");
    assertThat(child(cache, "natives").exitCode()).isZero();

    Result again = child(cache, "natives");

    assertThat(again.output()).contains("sum 6.0");
    assertThat(again.exitCode()).isZero();
  }

  /** The trap itself, where it exists: what the first test guards against. */
  @Test
  void plainLoadFromAnEmptyCacheCrashesWhereDebiansLibtorchIsInstalled() throws Exception {
    assumeThat(DEBIAN_LIBTORCH).as("Debian's libtorch-dev").exists();

    Result result = child(folder.resolve("cache"), "plain");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.output()).doesNotContain("sum 6.0");
  }

  @Test
  void shouldGiveEachRankOneThreadPerTaskCpu() {
    assertThat(TorchNatives.threadsFor(1)).isEqualTo(1);
    assertThat(TorchNatives.threadsFor(4)).isEqualTo(4);
    assertThat(TorchNatives.threadsFor(0)).isEqualTo(1);
  }

  /** The BLAS threads follow the task's CPUs, not the environment (which differs by host). */
  @Test
  void shouldSizeTheBlasThreadsAsTheFrameworksWhateverTheEnvironmentSays() {
    TorchNatives.load().require();
    int blasBefore = openblas_full.openblas_get_num_threads();
    int torchBefore = torch.get_num_threads();
    try {
      for (int cpus : new int[] {1, 3, 1}) {
        assertThat(TorchNatives.useThreads(cpus)).isEqualTo(cpus);
        assertThat(openblas_full.openblas_get_num_threads())
            .as("BLAS threads for %d CPUs", cpus)
            .isEqualTo(cpus);
        assertThat(torch.get_num_threads()).isEqualTo(cpus);
      }
    } finally {
      torch.set_num_threads(torchBefore);
      openblas_full.openblas_set_num_threads(blasBefore);
    }
  }

  private record Result(int exitCode, String output) {}

  private Result child(Path cache, String mode) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Dorg.bytedeco.javacpp.cachedir=" + cache);
    command.add("-XX:ErrorFile=" + folder.resolve("hs_err_%p.log"));
    command.add("-cp");
    String surefire = System.getProperty("surefire.test.class.path");
    command.add(surefire != null ? surefire : System.getProperty("java.class.path"));
    command.add(EmptyCacheMain.class.getName());
    command.add(mode);
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).directory(folder.toFile()).start();
    byte[] output;
    try (var in = process.getInputStream()) {
      output = in.readAllBytes();
    }
    if (!process.waitFor(180, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      return new Result(-1, new String(output, StandardCharsets.UTF_8) + "\n(timed out)");
    }
    return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }
}
