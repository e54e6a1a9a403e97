package dev.stoker.tools.spark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The PyTorch side of the images benchmark: {@code torch_images.py} (a resource beside this class)
 * run by a separate Python, torchvision's transforms on PIL in a torch {@code DataLoader} over the
 * benchmark's JPEG files, one epoch per worker count.
 */
final class TorchImagesPeer {
  static final String SCRIPT = "torch_images.py";
  private static final Pattern LINE =
      Pattern.compile("\\{\"workers\": (\\d+), \"samples\": (\\d+), \"seconds\": ([0-9.eE+-]+)\\}");
  private static final long LIMIT_MINUTES = 30;

  private final String python;
  private final Path script;

  private TorchImagesPeer(String python, Path script) {
    this.python = python;
    this.script = script;
  }

  /**
   * The Python to run the peer with: {@code $STOKER_PYTHON}, else Debian's {@code /usr/bin/python3}
   * where it exists, else {@code python3} on the path.
   */
  static String defaultPython() {
    String given = System.getenv("STOKER_PYTHON");
    if (given != null && !given.isBlank()) {
      return given;
    }
    return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
  }

  /**
   * Why {@code python} cannot run the peer (torch, torchvision or PIL missing, or no such program),
   * or null when it can.
   */
  static String missing(String python) {
    return PythonProbe.missing(
        python,
        List.of("torch", "torchvision", "PIL"),
        "Debian: apt-get install python3-torch python3-torchvision python3-pil; or set STOKER_PYTHON to a "
            + "Python that has them");
  }

  /** The peer, its script copied into {@code dir}. */
  static TorchImagesPeer in(Path dir, String python) {
    Path script = dir.resolve(SCRIPT);
    try (InputStream in = TorchImagesPeer.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(SCRIPT + " is missing beside " + TorchImagesPeer.class);
      }
      Files.copy(in, script);
    } catch (IOException e) {
      throw new UncheckedIOException("copying " + SCRIPT + " to " + dir + ": " + e, e);
    }
    return new TorchImagesPeer(python, script);
  }

  /**
   * One epoch with each of {@code workers}, over the files under {@code files}: samples/s per
   * worker count, in the order run.
   *
   * @throws IllegalStateException if the peer fails, with its last lines of error output
   */
  Map<Integer, Double> run(Path files, int batchSize, List<Integer> workers, PrintWriter progress) {
    List<String> command =
        List.of(
            python,
            script.toString(),
            "--dir",
            files.toString(),
            "--batch-size",
            Integer.toString(batchSize),
            "--workers",
            workers.stream().map(String::valueOf).collect(Collectors.joining(",")));
    Map<Integer, Double> rates = new LinkedHashMap<>();
    List<String> errors = new ArrayList<>();
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          Matcher m = LINE.matcher(line.strip());
          if (m.matches()) {
            rates.put(
                Integer.parseInt(m.group(1)),
                Long.parseLong(m.group(2)) / Double.parseDouble(m.group(3)));
          } else {
            errors.add(line);
          }
        }
      }
      if (!process.waitFor(LIMIT_MINUTES, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + ": still running after 30 min");
      }
      if (process.exitValue() != 0 || rates.size() != workers.size()) {
        throw new IllegalStateException(
            String.join(" ", command)
                + ": exit "
                + process.exitValue()
                + ", "
                + rates.size()
                + " of "
                + workers.size()
                + " epochs; its output ends: "
                + String.join(
                    "\n", errors.subList(Math.max(0, errors.size() - 10), errors.size())));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(String.join(" ", command) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running the PyTorch peer", e);
    }
    return rates;
  }
}
