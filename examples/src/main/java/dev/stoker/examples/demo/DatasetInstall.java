package dev.stoker.examples.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Installs Debian's {@code dataset-fashion-mnist} when the user asks for it ({@code
 * --install-dataset}): the command is printed before it runs, its output is shown line by line, and
 * it is stopped (with everything it started) when it runs past its time limit.
 */
final class DatasetInstall {
  /** The command that installs the package. */
  static final List<String> COMMAND = List.of("apt-get", "install", "-y", "dataset-fashion-mnist");

  /** How long it may run. */
  static final Duration LIMIT = Duration.ofMinutes(5);

  private static final Path APT_GET = Path.of("/usr/bin/apt-get");

  private DatasetInstall() {}

  /** Why {@code --install-dataset} cannot work for {@code user} here, or null when it can. */
  static String problem(String user) {
    if (!Files.isExecutable(APT_GET)) {
      return String.format(
          "--install-dataset: no %s on this machine (expected: a Debian or "
              + "Ubuntu machine; leave out --install-dataset to download the files into --cache, or "
              + "give them with --data DIR)",
          APT_GET);
    }
    if (!"root".equals(user)) {
      return String.format(
          "--install-dataset: '%s' needs root, and this runs as '%s' (expected: "
              + "root; run 'sudo %s' yourself, or leave out --install-dataset to download the files "
              + "into --cache)",
          String.join(" ", COMMAND), user, String.join(" ", COMMAND));
    }
    return null;
  }

  /**
   * Runs {@code command}, its output (stdout and stderr) copied to {@code log} as it comes.
   *
   * @throws IOException when it cannot start, fails, or runs past {@code limit} (then it is
   *     stopped), naming the command and the remedy
   */
  static void run(List<String> command, Duration limit, PrintStream log)
      throws IOException, InterruptedException {
    String line = String.join(" ", command);
    log.printf(
        "stoker: installing Debian's dataset-fashion-mnist (--install-dataset): %s "
            + "(stopped after %d s)%n",
        line, limit.toSeconds());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new IOException(
          "--install-dataset: '"
              + line
              + "' could not start: "
              + e.getMessage()
              + " (install the package yourself, or leave out --install-dataset)",
          e);
    }
    Thread pump = new Thread(() -> copy(process, log), "install-output");
    pump.setDaemon(true);
    pump.start();
    boolean done;
    try {
      done = process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      stop(process);
      throw e;
    }
    if (!done) {
      stop(process);
      pump.join(TimeUnit.SECONDS.toMillis(5));
      throw new IOException(
          String.format(
              "--install-dataset: '%s' was still running after %d s "
                  + "and was stopped (expected: done within %d s; run it yourself, or leave out "
                  + "--install-dataset to download the files into --cache)",
              line, limit.toSeconds(), limit.toSeconds()));
    }
    pump.join(TimeUnit.SECONDS.toMillis(5));
    if (process.exitValue() != 0) {
      throw new IOException(
          String.format(
              "--install-dataset: '%s' failed with exit code %d "
                  + "(its output is above; fix what it says, or leave out --install-dataset to download "
                  + "the files into --cache)",
              line, process.exitValue()));
    }
  }

  private static void copy(Process process, PrintStream log) {
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String text; (text = reader.readLine()) != null; ) {
        log.println("  " + text);
      }
    } catch (IOException e) {
      if (process.isAlive()) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * Stops the process and whatever it started: asked to end first (apt-get and dpkg clean up on
   * SIGTERM), killed if still running after ten seconds.
   */
  private static void stop(Process process) throws InterruptedException {
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    all.add(process.toHandle());
    all.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (ProcessHandle handle : all) {
      long left = deadline - System.nanoTime();
      try {
        handle.onExit().get(Math.max(0, left), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException e) {
        handle.destroyForcibly();
      }
    }
  }
}
