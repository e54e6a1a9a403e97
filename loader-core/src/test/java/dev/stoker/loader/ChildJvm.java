package dev.stoker.loader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a main class of the tests in a JVM of its own, for what could bring a JVM down. */
final class ChildJvm {
  /** How the child ended: its exit code (134 and up: killed by a signal) and what it printed. */
  record Result(int exitCode, String output) {}

  private ChildJvm() {}

  static Result run(Class<?> main, List<String> jvmOptions, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] output;
    try (var in = process.getInputStream()) {
      output = in.readAllBytes();
    }
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return new Result(-1, new String(output, StandardCharsets.UTF_8) + "\n(timed out)");
    }
    return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }
}
