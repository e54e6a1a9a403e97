package dev.stoker.tools.spark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Whether a Python can import what a benchmark's Python side needs, asked before the benchmark
 * starts, so that a missing module is one line that says what to install rather than a stack trace
 * from deep inside a run.
 */
public final class PythonProbe {
  private static final long TIMEOUT_MINUTES = 2;

  private PythonProbe() {}

  /**
   * Why {@code python} cannot import {@code modules} (one missing or broken, or no such program),
   * ending with {@code remedy}; null when it can.
   */
  public static String missing(String python, List<String> modules, String remedy) {
    String names = names(modules);
    try {
      // The output goes to a file, so that a Python that hangs is given up after the timeout
      // rather than read from forever.
      Path output = Files.createTempFile("stoker-python-probe-", ".txt");
      try {
        Process process =
            new ProcessBuilder(python, "-c", "import " + String.join(", ", modules))
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        boolean ended;
        try {
          ended = process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES);
        } finally {
          if (process.isAlive()) { // timed out, or this thread was interrupted
            process.destroyForcibly();
          }
        }
        if (!ended) {
          return python + " did not import " + names + " within " + TIMEOUT_MINUTES + " minutes";
        }
        return process.exitValue() == 0
            ? null
            : python
                + " cannot import "
                + names
                + ": "
                + Files.readString(output, StandardCharsets.UTF_8)
                    .strip()
                    .lines()
                    .reduce((a, b) -> b)
                    .orElse("")
                + " ("
                + remedy
                + ")";
      } finally {
        Files.deleteIfExists(output);
      }
    } catch (IOException e) {
      return python + " cannot be run: " + e.getMessage() + " (set STOKER_PYTHON)";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted while checking " + python;
    }
  }

  /** "a", "a and b", "a, b and c". */
  static String names(List<String> modules) {
    int n = modules.size();
    return n <= 1
        ? String.join("", modules)
        : String.join(", ", modules.subList(0, n - 1)) + " and " + modules.get(n - 1);
  }
}
