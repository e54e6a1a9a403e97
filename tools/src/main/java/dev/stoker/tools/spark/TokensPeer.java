package dev.stoker.tools.spark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The PyTorch side of the tokens benchmark: {@code torch_tokens.py} (a resource beside this class)
 * run by a separate Python, a torch {@code IterableDataset} reading the documents' Parquet with
 * PyArrow and packing them with NumPy, in a {@code DataLoader} on each of {@code ranks} processes,
 * one epoch per worker count.
 */
final class TokensPeer {
  static final String SCRIPT = "torch_tokens.py";
  private static final String NUMBER = "([0-9.eE+-]+)";
  private static final Pattern LINE =
      Pattern.compile(
          "\\{\"workers\": (\\d+), \"tokens\": (\\d+), \"seconds\": "
              + NUMBER
              + ", \"first_batch_s\": "
              + NUMBER
              + "\\}");
  private static final long LIMIT_MINUTES = 60;

  /** One epoch of the peer: the tokens of every rank's full batches, its seconds. */
  record Epoch(long tokens, double seconds, double firstBatchSeconds) {
    double tokensPerSecond() {
      return tokens / seconds;
    }
  }

  private final String python;
  private final Path script;

  private TokensPeer(String python, Path script) {
    this.python = python;
    this.script = script;
  }

  /**
   * Why {@code python} cannot run the peer (torch, NumPy or PyArrow missing, or no such program),
   * or null when it can.
   */
  static String missing(String python) {
    return PythonProbe.missing(
        python,
        List.of("torch", "numpy", "pyarrow.parquet"),
        "Debian: apt-get install python3-torch python3-numpy, then pip install pyarrow in a venv with "
            + "--system-site-packages, as .ci/run makes; set STOKER_PYTHON to that Python");
  }

  /** The peer, its script copied into {@code dir}. */
  static TokensPeer in(Path dir, String python) {
    Path script = dir.resolve(SCRIPT);
    try (InputStream in = TokensPeer.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(SCRIPT + " is missing beside " + TokensPeer.class);
      }
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("copying " + SCRIPT + " to " + dir + ": " + e, e);
    }
    return new TokensPeer(python, script);
  }

  /**
   * One epoch with each of {@code workers} over the Parquet files in {@code data}, on {@code ranks}
   * processes: each epoch by worker count, in the order run. {@code seed} orders the row groups.
   *
   * @throws IllegalStateException if the peer fails, with its last lines of output
   */
  Map<Integer, Epoch> run(
      Path data, int length, int batchSize, int ranks, List<Integer> workers, int seed) {
    List<String> command =
        List.of(
            python,
            script.toString(),
            "--dir",
            data.toString(),
            "--length",
            Integer.toString(length),
            "--batch-size",
            Integer.toString(batchSize),
            "--ranks",
            Integer.toString(ranks),
            "--workers",
            workers.stream().map(String::valueOf).collect(Collectors.joining(",")),
            "--seed",
            Integer.toString(seed));
    Map<Integer, Epoch> epochs = new LinkedHashMap<>();
    List<String> other = new ArrayList<>();
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
            epochs.put(
                Integer.parseInt(m.group(1)),
                new Epoch(
                    Long.parseLong(m.group(2)),
                    Double.parseDouble(m.group(3)),
                    Double.parseDouble(m.group(4))));
          } else {
            other.add(line);
          }
        }
      }
      if (!process.waitFor(LIMIT_MINUTES, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            String.join(" ", command) + ": still running after " + LIMIT_MINUTES + " min");
      }
      if (process.exitValue() != 0 || epochs.size() != workers.size()) {
        throw new IllegalStateException(
            String.join(" ", command)
                + ": exit "
                + process.exitValue()
                + ", "
                + epochs.size()
                + " of "
                + workers.size()
                + " epochs; its output ends: "
                + String.join("\n", other.subList(Math.max(0, other.size() - 10), other.size())));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(String.join(" ", command) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running the PyTorch peer", e);
    }
    return epochs;
  }
}
