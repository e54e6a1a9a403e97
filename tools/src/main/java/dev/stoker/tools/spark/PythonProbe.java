package dev.stoker.tools.spark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
      Process process =
          new ProcessBuilder(python, "-c", "import " + String.join(", ", modules))
              .redirectErrorStream(true)
              .start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        return python + " did not import " + names + " within " + TIMEOUT_MINUTES + " minutes";
      }
      return process.exitValue() == 0
          ? null
          : python
              + " cannot import "
              + names
              + ": "
              + output.strip().lines().reduce((a, b) -> b).orElse("")
              + " ("
              + remedy
              + ")";
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
