package dev.stoker.examples.cli;

import dev.stoker.loader.bench.ReferenceWorkloads;
import dev.stoker.spark.bench.SparkIngestBench;
import dev.stoker.spark.bench.SparkIngestResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** {@code stoker bench --workload spark}: runs {@link SparkIngestBench} and prints its figures. */
final class SparkBench {
  static final int DEFAULT_ROWS = 200_000;
  private static final int WIDTH = 784;
  /** Options of the sweep that mean nothing to this workload. */
  private static final List<String> SWEEP_ONLY = List.of("--prefetch", "--pin-memory",
      "--batches", "--warmup", "--plot");

  private final Path json;

  SparkBench(Path json) {
    this.json = json;
  }

  static void checkOptions(CommandLine line) {
    for (String option : SWEEP_ONLY) {
      if (line.getParseResult().hasMatchedOption(option)) {
        throw new ParameterException(line, option + " with --workload spark (expected: only with "
            + String.join(", ", ReferenceWorkloads.NAMES) + "; the spark workload times whole "
            + "epochs on --ranks ranks)");
      }
    }
  }

  int run(int rows, int batchSize, int epochs, int workers, int ranks, int repeats,
      PrintWriter out, PrintWriter err) throws IOException {
    SparkIngestBench.Config config = new SparkIngestBench.Config(rows, WIDTH, batchSize, ranks,
        epochs, repeats, workers);
    SparkIngestResult result = new SparkIngestBench(config, line -> {
      err.println("stoker: " + line);
      err.flush();
    }).run();
    out.print(result.text());
    if (json != null) {
      Files.writeString(json, result.json());
      out.println("json: " + json);
    }
    out.flush();
    return 0;
  }
}
