package dev.stoker.examples.cli;

import dev.stoker.spark.DeviceFactory;
import dev.stoker.tools.bench.ReferenceWorkloads;
import dev.stoker.tools.spark.DeviceBench;
import dev.stoker.tools.spark.DeviceBenchResult;
import dev.stoker.tools.spark.ImagesBench;
import dev.stoker.tools.spark.ImagesBenchResult;
import dev.stoker.tools.spark.ObjectStoreBench;
import dev.stoker.tools.spark.ObjectStoreBenchResult;
import dev.stoker.tools.spark.ResumeBench;
import dev.stoker.tools.spark.ResumeBenchResult;
import dev.stoker.tools.spark.ShuffleBench;
import dev.stoker.tools.spark.ShuffleBenchResult;
import dev.stoker.tools.spark.SourceBench;
import dev.stoker.tools.spark.SourceBenchResult;
import dev.stoker.tools.spark.SparkIngestBench;
import dev.stoker.tools.spark.SparkIngestResult;
import dev.stoker.tools.spark.TokensBench;
import dev.stoker.tools.spark.TokensBenchResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * {@code stoker bench --workload spark|spark-source|spark-device}: runs {@link SparkIngestBench},
 * {@link SourceBench} or {@link DeviceBench} on an embedded Spark and prints their figures, and
 * their JSON with {@code --json}.
 */
final class SparkBench {
  /** Workloads that run on an embedded Spark instead of the sweep. */
  static final List<String> WORKLOADS =
      List.of(
          "spark",
          SourceBench.WORKLOAD,
          DeviceBench.WORKLOAD,
          ResumeBench.WORKLOAD,
          PythonBench.WORKLOAD,
          TrainBench.WORKLOAD,
          ImagesBench.WORKLOAD,
          ShuffleBench.WORKLOAD,
          ObjectStoreBench.WORKLOAD);

  /** Rows of the generated Parquet unless --rows says otherwise. */
  static final int DEFAULT_ROWS = 200_000;

  /** Floats per row (28 x 28). */
  private static final int WIDTH = 784;

  /** Options of the sweep that mean nothing to the spark and spark-device workloads. */
  private static final List<String> SWEEP_ONLY =
      List.of("--prefetch", "--pin-memory", "--batches", "--warmup", "--plot");

  private final Path json;
  private final PrintWriter out;
  private final PrintWriter err;

  SparkBench(Path json, PrintWriter out, PrintWriter err) {
    this.json = json;
    this.out = out;
    this.err = err;
  }

  static void checkOptions(CommandLine line, String workload) {
    for (String option : SWEEP_ONLY) {
      boolean pythonRuns = "--warmup".equals(option) && PythonBench.WORKLOAD.equals(workload);
      if (!pythonRuns && line.getParseResult().hasMatchedOption(option)) {
        throw new ParameterException(
            line,
            option
                + " with --workload "
                + workload
                + " (expected: only with "
                + String.join(", ", ReferenceWorkloads.NAMES)
                + "; the "
                + workload
                + " workload times whole epochs on --ranks ranks)");
      }
    }
  }

  /** --workload spark: the runner against batching Row objects. */
  int ingest(int rows, int batchSize, int epochs, int workers, int ranks, int repeats)
      throws IOException {
    SparkIngestBench.Config config =
        new SparkIngestBench.Config(rows, WIDTH, batchSize, ranks, epochs, repeats, workers);
    SparkIngestResult result =
        new SparkIngestBench(
                config,
                line -> {
                  err.println("stoker: " + line);
                  err.flush();
                })
            .run();
    out.print(result.text());
    return json(result.json());
  }

  /** --workload spark-source: both reads, median seconds of --repeats runs each. */
  int source(int rows, int batchSize, int ranks, int repeats) throws IOException {
    SourceBenchResult result =
        SourceBench.run(new SourceBench.Config(rows, WIDTH, ranks, batchSize, repeats), err);
    result.print(out);
    return json(result.json());
  }

  /**
   * --workload shuffle: an input sorted by label read for --epochs epochs without shuffle and with
   * each shuffle buffer, the rows/s and the shuffle's quality of each beside a random
   * permutation's.
   */
  int shuffle(int rows, int batchSize, int ranks, int epochs) throws IOException {
    ShuffleBenchResult result =
        ShuffleBench.run(
            new ShuffleBench.Config(rows, ranks, batchSize, epochs, ShuffleBench.DEFAULT_BUFFERS),
            err);
    result.print(out);
    return json(result.json());
  }

  /**
   * --workload object-store: format("stoker") and Spark's Parquet reader over the objects of a real
   * S3 server behind a shaped link, alternating.
   */
  int objectStore(ObjectStoreBench.Config config) throws IOException {
    ObjectStoreBenchResult result = ObjectStoreBench.run(config, err);
    result.print(out);
    return json(result.json());
  }

  /**
   * --workload spark-device: format("stoker") through the runner into loaders on the CPU device
   * ({@link DeviceFactory#CPU}; a GPU cluster would pass loader-core's {@code
   * CudaDevice::forAddress}) against the read alone, median seconds of --repeats runs.
   */
  int device(int rows, int batchSize, int workers, int ranks, int repeats) throws IOException {
    DeviceBenchResult result =
        DeviceBench.run(
            new DeviceBench.Config(rows, WIDTH, ranks, batchSize, repeats, workers),
            DeviceFactory.CPU,
            err);
    result.print(out);
    return json(result.json());
  }

  /**
   * --workload resume: the time to the first batch when resuming at 0, 50 and 90 % of an epoch, for
   * an indexed source and for format("stoker") over Parquet, median of --repeats rounds.
   */
  int resume(int rows, int batchSize, int workers, int ranks, int repeats) throws IOException {
    ResumeBenchResult result =
        ResumeBench.run(
            new ResumeBench.Config(rows, WIDTH, ranks, batchSize, repeats, workers), err);
    result.print(out);
    return json(result.json());
  }

  /**
   * --workload python: tensors in Python through shared memory against the mapInArrow way of
   * docs/datasource.md and the JVM's own read of the same format("stoker") read, run by the Python
   * package.
   */
  int python(
      int rows, int batchSize, int ranks, int repeats, Integer numWorkers, int epochs, int warmups)
      throws IOException {
    String result =
        PythonBench.run(rows, batchSize, ranks, repeats, numWorkers, epochs, warmups, err);
    out.println(result);
    return json(result);
  }

  /**
   * --workload train: the demo's CNN step fed by Stoker against the same step fed from memory, on
   * --ranks ranks of an embedded Spark, medians of --repeats.
   */
  int train(int rows, int batchSize, int workers, int ranks, int repeats) throws IOException {
    TrainBench.Result result = TrainBench.run(rows, batchSize, workers, ranks, repeats, err);
    out.print(result.text());
    return json(result.json());
  }

  /**
   * --workload images: JPEG photos through format("stoker") with the ImageNet training transforms
   * against torchvision on PIL in a torch DataLoader over the same files, in alternating rounds.
   */
  int images(
      int images,
      int batchSize,
      int ranks,
      int repeats,
      List<Integer> stokerWorkers,
      Path photos,
      String python)
      throws IOException {
    ImagesBenchResult result;
    try {
      result =
          ImagesBench.run(
              new ImagesBench.Config(
                  images,
                  ranks,
                  batchSize,
                  repeats,
                  stokerWorkers,
                  ImagesBench.defaultTorchWorkers(),
                  photos,
                  python),
              err);
    } catch (IllegalArgumentException | IllegalStateException e) {
      err.println("stoker: " + e.getMessage());
      err.flush();
      return 1;
    }
    result.print(out);
    return json(result.json());
  }

  /**
   * --workload tokens: documents of token ids packed by format("stoker") with pack against a
   * PyTorch IterableDataset packing them with PyArrow and NumPy, in alternating rounds.
   */
  int tokens(TokensBench.Config config) throws IOException {
    TokensBenchResult result;
    try {
      result = TokensBench.run(config, err);
    } catch (IllegalArgumentException | IllegalStateException e) {
      err.println("stoker: " + e.getMessage());
      err.flush();
      return 1;
    }
    result.print(out);
    return json(result.json());
  }

  private int json(String text) throws IOException {
    if (json != null) {
      Files.writeString(json, text);
      out.println("json: " + json);
    }
    out.flush();
    return 0;
  }
}
