package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --install-dataset}'s command: output shown, failures and overruns named, stopped. */
class DatasetInstallTest {
  private final ByteArrayOutputStream log = new ByteArrayOutputStream();

  private void run(String script, Duration limit) throws Exception {
    DatasetInstall.run(
        List.of("sh", "-c", script), limit, new PrintStream(log, true, StandardCharsets.UTF_8));
  }

  private String log() {
    return log.toString(StandardCharsets.UTF_8);
  }

  @Test
  void shouldShowTheCommandAndItsOutput() throws Exception {
    run("echo Reading package lists...; echo W: a warning >&2", Duration.ofMinutes(1));

    assertThat(log())
        .isEqualTo(
            "stoker: installing Debian's dataset-fashion-mnist "
                + "(--install-dataset): sh -c echo Reading package lists...; echo W: a warning >&2 "
                + "(stopped after 60 s)\n  Reading package lists...\n  W: a warning\n");
  }

  @Test
  void shouldNameTheExitCodeOfAFailure() {
    assertThatThrownBy(
            () -> run("echo E: Unable to locate package; exit 100", Duration.ofMinutes(1)))
        .isInstanceOf(IOException.class)
        .hasMessage(
            "--install-dataset: 'sh -c echo E: Unable to locate package; exit 100' failed "
                + "with exit code 100 (its output is above; fix what it says, or leave out "
                + "--install-dataset to download the files into --cache)");
    assertThat(log()).contains("  E: Unable to locate package\n");
  }

  @Test
  void shouldStopTheCommandAndWhatItStartedAtTheLimit() {
    String script = "sleep 600 & echo $!; wait";

    assertThatThrownBy(() -> run(script, Duration.ofSeconds(1)))
        .isInstanceOf(IOException.class)
        .hasMessage(
            "--install-dataset: 'sh -c "
                + script
                + "' was still running after 1 s and "
                + "was stopped (expected: done within 1 s; run it yourself, or leave out "
                + "--install-dataset to download the files into --cache)");
    String[] lines = log().split("\n");
    long sleeper = Long.parseLong(lines[lines.length - 1].strip());
    assertThat(ProcessHandle.of(sleeper).filter(ProcessHandle::isAlive)).isEmpty();
  }

  @Test
  void shouldSayWhyItCannotInstallForAnotherUser() {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/apt-get")), "not a Debian machine");

    assertThat(DatasetInstall.problem("alice"))
        .isEqualTo(
            "--install-dataset: 'apt-get install "
                + "-y dataset-fashion-mnist' needs root, and this runs as 'alice' (expected: root; run "
                + "'sudo apt-get install -y dataset-fashion-mnist' yourself, or leave out "
                + "--install-dataset to download the files into --cache)");
    assertThat(DatasetInstall.problem("root")).isNull();
  }
}
