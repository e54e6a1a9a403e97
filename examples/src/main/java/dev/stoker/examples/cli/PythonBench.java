package dev.stoker.examples.cli;

import dev.stoker.loader.DataLoader;
import dev.stoker.spark.StokerSpark;
import dev.stoker.tools.spark.PythonProbe;
import dev.stoker.tools.spark.python.JvmRead;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code stoker bench --workload python}: runs {@code python -m stoker.bench} (the Python package
 * in this checkout's {@code python/}, or an installed one) with PySpark, given the jars this
 * command runs from (loader-core, the connector, and the tools for the JVM yardstick the Python
 * side calls), and hands its JSON on. The Python is {@code $STOKER_PYTHON}, else {@code python3}:
 * one that imports pyspark, pyarrow and torch.
 */
final class PythonBench {
  static final String WORKLOAD = "python";

  /**
   * Rows by default: an epoch long enough that the start of a Spark stage, which costs a PySpark
   * barrier stage more than a JVM one, does not decide the figure.
   */
  static final int DEFAULT_ROWS = 2_000_000;

  /** Batch size by default: a common per-step batch of image training. */
  static final int DEFAULT_BATCH_SIZE = 256;

  /**
   * Runs of every way before those measured, by default: within the first runs the JVM still
   * compiles the loader's loops (on two cores, Stoker's figure still fell in its third run).
   */
  static final int DEFAULT_WARMUPS = 3;

  private PythonBench() {}

  /** The JSON the Python side printed; its progress goes to {@code err} as it comes. */
  static String run(
      int rows,
      int batchSize,
      int ranks,
      int repeats,
      Integer numWorkers,
      int epochs,
      int warmups,
      PrintWriter err)
      throws IOException {
    Path loaderJar = jarOf(DataLoader.class);
    Path connectorJar = jarOf(StokerSpark.class);
    Path toolsJar = jarOf(JvmRead.class);
    String python = System.getenv().getOrDefault("STOKER_PYTHON", "python3");
    String missing = missing(python);
    if (missing != null) {
      throw new IllegalStateException("bench --workload python: " + missing);
    }
    List<String> command =
        new ArrayList<>(
            List.of(
                python,
                "-W",
                "ignore",
                "-m",
                "stoker.bench",
                "--jars",
                loaderJar + "," + connectorJar + "," + toolsJar,
                "--rows",
                Integer.toString(rows),
                "--batch-size",
                Integer.toString(batchSize),
                "--ranks",
                Integer.toString(ranks),
                "--repeats",
                Integer.toString(repeats),
                "--epochs",
                Integer.toString(epochs),
                "--warmups",
                Integer.toString(warmups)));
    if (numWorkers != null) {
      command.addAll(List.of("--num-workers", numWorkers.toString()));
    }
    ProcessBuilder builder = new ProcessBuilder(command);
    Path sources = pythonSources(loaderJar);
    if (sources != null) {
      Map<String, String> env = builder.environment();
      String path = env.get("PYTHONPATH");
      env.put("PYTHONPATH", sources + (path == null || path.isEmpty() ? "" : ":" + path));
    }
    builder.redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.PIPE);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new IOException(
          "cannot start '"
              + python
              + "' (set STOKER_PYTHON to a Python with "
              + "pyspark, pyarrow and torch): "
              + e.getMessage(),
          e);
    }
    Thread relay = new Thread(() -> relay(process, err), "stoker-bench-python-stderr");
    relay.setDaemon(true);
    relay.start();
    String json = null;
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith("{")) {
          json = line;
        }
      }
    }
    int exit;
    try {
      exit = process.waitFor();
      relay.join();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for " + command, e);
    }
    if (exit != 0 || json == null) {
      throw new IOException(
          "'"
              + String.join(" ", command)
              + "' exited with "
              + exit
              + " (its output is above; it needs pyspark, pyarrow and torch: see docs/python.md)");
    }
    return json;
  }

  /**
   * Why {@code python} cannot run the Python side (PySpark, PyArrow or PyTorch missing), or null.
   */
  static String missing(String python) {
    return PythonProbe.missing(
        python,
        List.of("pyspark", "pyarrow", "torch"),
        "pip install pyspark=="
            + org.apache.spark.package$.MODULE$.SPARK_VERSION()
            + " pyarrow in a venv with --system-site-packages over Debian's python3-torch, as "
            + ".ci/run makes, and set STOKER_PYTHON to its python; see docs/python.md");
  }

  private static void relay(Process process, PrintWriter err) {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (line.startsWith("stoker:") || line.contains("Error") || line.contains("error")) {
          err.println(line);
          err.flush();
        }
      }
    } catch (IOException e) {
      err.println("stoker: lost the Python side's output: " + e.getMessage());
    }
  }

  /** The jar a class was loaded from. */
  private static Path jarOf(Class<?> type) throws IOException {
    try {
      Path path = Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!Files.isRegularFile(path)) {
        throw new IOException(
            type.getName()
                + " comes from "
                + path
                + ", not a jar: run "
                + "bin/stoker, which builds the jars first");
      }
      return path;
    } catch (URISyntaxException e) {
      throw new IOException("where is " + type.getName() + "'s jar: " + e.getMessage(), e);
    }
  }

  /** This checkout's {@code python/} folder, found from a module's jar, or null. */
  private static Path pythonSources(Path jar) {
    for (Path dir = jar.getParent(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("python/stoker/__init__.py"))) {
        return dir.resolve("python");
      }
    }
    return null;
  }
}
