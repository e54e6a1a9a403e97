package dev.stoker.examples.cli;

import dev.stoker.tools.bench.BenchmarkResult;
import dev.stoker.tools.bench.MemcpyBaseline;
import dev.stoker.tools.bench.MemcpyLimits;
import dev.stoker.tools.bench.MemcpyMeter;
import dev.stoker.tools.bench.ReferenceWorkloads;
import dev.stoker.tools.bench.Sweep;
import dev.stoker.tools.bench.SweepConfig;
import dev.stoker.tools.bench.SweepResult;
import dev.stoker.tools.bench.Workload;
import dev.stoker.tools.spark.AllReduceBench;
import dev.stoker.tools.spark.AllReduceResult;
import dev.stoker.tools.spark.DeviceBench;
import dev.stoker.tools.spark.ImagesBench;
import dev.stoker.tools.spark.ObjectStoreBench;
import dev.stoker.tools.spark.ResumeBench;
import dev.stoker.tools.spark.ShuffleBench;
import dev.stoker.tools.spark.SourceBench;
import dev.stoker.tools.spark.TokensBench;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code stoker bench}: sweeps workers x prefetch x pinning on a reference workload, measuring the
 * memcpy bandwidth of the workload's gather with one thread and with all cores before every round
 * of the grid, and prints one row per configuration against both.
 */
@Command(
    name = "bench",
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Measures the loader on a reference workload across workers, prefetch and pinning.",
      "",
      "Runs every configuration of the grid (the median of --repeats runs each) on a "
          + "reference workload and prints samples/s, MB/s, the ratios to a memcpy of the same "
          + "gather with one thread and with as many threads as cores (measured before every "
          + "round of the grid; the medians count), the bottleneck verdict, "
          + "the heap bytes allocated per batch and the garbage collections in the measured "
          + "window. The consumer only touches each batch, so the figures are what the loader "
          + "can deliver.",
      ""
    })
final class BenchCommand implements Callable<Integer> {
  /** Timed rounds of each memcpy measurement; the median counts. */
  private static final int MEMCPY_ROUNDS = 7;

  /** Rounds of --workload images and tokens unless --repeats says otherwise. */
  private static final int IMAGES_REPEATS = 3;

  /** The options --workload tokens takes, itself first. */
  private static final List<String> TOKENS_OPTIONS =
      List.of(
          "--workload",
          "--documents",
          "--data",
          "--ranks",
          "--batch-size",
          "--workers",
          "--repeats",
          "--json");

  /** Workloads that run on an embedded Spark instead of the sweep. */
  static final List<String> SPARK_WORKLOADS = SparkBench.WORKLOADS;

  /** Epochs per setting of --workload shuffle unless --epochs says otherwise. */
  static final int SHUFFLE_EPOCHS = 3;

  @Spec CommandSpec spec;

  @Option(
      names = "--workload",
      required = true,
      paramLabel =
          "copy|normalize|stream|typed|typed-stream|spark|spark-source|spark-device|"
              + "resume|python|train|images|tokens|shuffle|object-store|allreduce",
      converter = Converters.WorkloadName.class,
      description =
          "copy: float32 [3,64,64] images copied as they are; normalize: uint8 images "
              + "converted to float32 with ImageNet mean/std; stream: copy's data from a streamed "
              + "source in column chunks of --chunk-rows rows, the chunks shuffled with (seed, "
              + "epoch), rows in order within a chunk; typed: one field of each dtype (float32, "
              + "float64, int32, int64, uint8), each written with its typed bulk put; typed-stream: "
              + "typed's data streamed in chunks of --chunk-rows rows; spark: a Parquet DataFrame "
              + "(--rows rows of 784 floats and a label) into batches on --ranks ranks of an "
              + "embedded Spark, through Stoker's runner and through Row objects, with the time to "
              + "the first batch; spark-source: the same Parquet read into batches per rank through "
              + "format(\"stoker\") and through parquet + repartition + batching rows; "
              + "spark-device: the same Parquet read with format(\"stoker\") through Stoker's "
              + "runner into loaders with a device (the CPU here), consumed as a training step "
              + "would, against the format(\"stoker\") read alone; resume: the time to the first "
              + "batch when resuming at 0, 50 and 90 percent of an epoch, for an indexed source and for "
              + "format(\"stoker\") over the same Parquet; python: the same read as "
              + "PyTorch tensors in Python through shared memory (stoker.torch), against the "
              + "mapInArrow way of docs/datasource.md and the read consumed in the JVM "
              + "($STOKER_PYTHON, else "
              + "python3, with pyspark, pyarrow and torch; --rows default "
              + PythonBench.DEFAULT_ROWS
              + ", --batch-size default "
              + PythonBench.DEFAULT_BATCH_SIZE
              + ", numWorkers the first of --workers if given, else the loader's default); train: "
              + "the demo's CNN training step (PyTorch) on --ranks ranks fed by Stoker through "
              + "the runner (--rows images, default "
              + TrainBench.DEFAULT_ROWS
              + "; numWorkers the first of --workers if "
              + "given, else 1) against the same step fed from tensors already in memory; images: --rows JPEG "
              + "photos (default "
              + ImagesBench.DEFAULT_IMAGES
              + ", about 500x375, cut from the photographs in --photos) through format(\"stoker\") "
              + "with transforms="
              + ImagesBench.SPEC
              + " on --ranks ranks (numWorkers each of --workers, default 1, 2 and the cores) "
              + "against torchvision's same transforms on PIL in a torch DataLoader over the same "
              + "JPEG files (num_workers 0 to the cores; $STOKER_PYTHON, else /usr/bin/python3), "
              + "in alternating rounds; tokens: --documents documents of token ids (default "
              + TokensBench.DEFAULT_DOCUMENTS
              + ", lognormal lengths of median 200 tokens, kept in --data and reused) packed into "
              + "rows of "
              + TokensBench.DEFAULT_LENGTH
              + " tokens by format(\"stoker\") with pack on --ranks ranks (batch default "
              + TokensBench.DEFAULT_BATCH_SIZE
              + ") against a PyTorch IterableDataset packing them with PyArrow and NumPy in a "
              + "DataLoader per rank (num_workers each of --workers; $STOKER_PYTHON, else "
              + "/usr/bin/python3, with torch, numpy and pyarrow), in alternating rounds; "
              + "shuffle: --rows rows sorted by label (10 classes) through format(\"stoker\") on "
              + "--ranks ranks for --epochs epochs without shuffle and with each shuffle buffer, "
              + "the rows/s and the shuffle's quality (the entropy of the gaps between consecutive "
              + "rows, the labels' distance in each step from all rows' labels) beside a random "
              + "permutation's; object-store: spark-source's data as objects of a real S3 server "
              + "(gofakes3, on the PATH or in ~/go/bin) through s3a, behind a link of --rtt-ms "
              + "round trip and --link-gb-s GB/s (a network namespace and tc netem: as root; "
              + "--rtt-ms 0 for the loopback, unshaped), one epoch a run through format(\"stoker\") "
              + "and through Spark's Parquet reader, alternating, with the server's requests, the "
              + "first batch, and the requests of a second epoch the shard cache serves; "
              + "allreduce: the ranks' "
              + "allReduceSum(float[]) of --floats floats by the star and by the ring, ranks as "
              + "threads on the loopback, with NCCL's algbw and busbw.")
  String workload;

  @Option(
      names = "--ranks",
      defaultValue = "2",
      split = ",",
      paramLabel = "N",
      converter = Converters.Positive.class,
      description =
          "Ranks of the spark workloads; --workload allreduce takes a list, e.g. 2,4 "
              + "(default: ${DEFAULT-VALUE}).")
  List<Integer> rankCounts;

  /** The one world size of the spark workloads: the first of --ranks. */
  int ranks;

  @Option(
      names = "--floats",
      defaultValue = "100k,1m,10m",
      split = ",",
      paramLabel = "N",
      converter = Converters.Count.class,
      description =
          "Array lengths of --workload allreduce, with k = 1000 and m = 1000000 "
              + "(default: ${DEFAULT-VALUE}).")
  List<Integer> floats;

  @Option(
      names = "--rows",
      paramLabel = "N",
      converter = Converters.Positive.class,
      description =
          "Rows of the Parquet the spark workloads generate, at least --ranks x "
              + "--batch-size (default: "
              + SparkBench.DEFAULT_ROWS
              + "; --samples, the older name, "
              + "also works with them).")
  Integer rows;

  @Option(
      names = "--samples",
      defaultValue = "20000",
      paramLabel = "N",
      converter = Converters.Positive.class,
      description = "Samples in memory (default: ${DEFAULT-VALUE}).")
  int samples;

  @Option(
      names = "--batch-size",
      defaultValue = "64",
      paramLabel = "B",
      converter = Converters.Positive.class,
      description = "Samples per batch (default: ${DEFAULT-VALUE}).")
  int batchSize;

  @Option(
      names = "--workers",
      defaultValue = "0,1,2",
      split = ",",
      paramLabel = "W",
      converter = Converters.NonNegative.class,
      description =
          "Worker counts to try; 0 loads in the caller's thread; the spark and "
              + "spark-device workloads take the first (default: ${DEFAULT-VALUE}).")
  List<Integer> workers;

  @Option(
      names = "--prefetch",
      defaultValue = "2,4",
      split = ",",
      paramLabel = "P",
      converter = Converters.Positive.class,
      description = "Prefetch factors to try with workers > 0 (default: ${DEFAULT-VALUE}).")
  List<Integer> prefetch;

  @Option(
      names = "--pin-memory",
      defaultValue = "false",
      split = ",",
      arity = "1",
      paramLabel = "true|false",
      converter = Converters.Bool.class,
      description = "Pinned-memory settings to try (default: ${DEFAULT-VALUE}).")
  List<Boolean> pinMemory;

  @Option(
      names = "--chunk-rows",
      defaultValue = "4096",
      paramLabel = "N",
      converter = Converters.Positive.class,
      description =
          "Rows per column chunk of --workload stream, at most "
              + ReferenceWorkloads.MAX_CHUNK_ROWS
              + " (default: ${DEFAULT-VALUE}).")
  int chunkRows;

  @Option(
      names = "--batches",
      defaultValue = "1000",
      paramLabel = "M",
      converter = Converters.Positive.class,
      description = "Batches measured per run (default: ${DEFAULT-VALUE}).")
  int batches;

  @Option(
      names = "--warmup",
      defaultValue = "20",
      paramLabel = "K",
      converter = Converters.NonNegative.class,
      description =
          "Batches consumed before measuring (default: ${DEFAULT-VALUE}); with "
              + "--workload python, whole runs of every way (default: "
              + PythonBench.DEFAULT_WARMUPS
              + ").")
  int warmup;

  @Option(
      names = "--epochs",
      defaultValue = "1",
      paramLabel = "E",
      converter = Converters.Positive.class,
      description =
          "Epochs per run of --workload spark: Stoker reads the DataFrame once and "
              + "serves every epoch from its shard cache, the Row path reads it again every epoch; "
              + "of --workload python: stoker.torch (and the JVM's loader alike) runs every epoch "
              + "in one stage, the other ways a job per epoch; of --workload shuffle: epochs per "
              + "setting (default: ${DEFAULT-VALUE}; "
              + SHUFFLE_EPOCHS
              + " for shuffle).")
  int epochs;

  @Option(
      names = "--repeats",
      defaultValue = "5",
      paramLabel = "R",
      converter = Converters.Positive.class,
      description = "Runs per configuration; the median counts (default: ${DEFAULT-VALUE}).")
  int repeats;

  @Option(
      names = "--photos",
      paramLabel = "DIR",
      description =
          "Photographs (PNG or JPEG) that --workload images cuts its photos from (default: "
              + ImagesBench.DEFAULT_PHOTOS
              + ", Debian's python3-skimage).")
  Path photos;

  @Option(
      names = "--documents",
      paramLabel = "N",
      converter = Converters.Count.class,
      description =
          "Documents of --workload tokens, with k = 1000 and m = 1000000 (default: "
              + TokensBench.DEFAULT_DOCUMENTS
              + ").")
  Integer documents;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description =
          "Folder where --workload tokens keeps its generated documents, one folder per count, "
              + "reused while complete (default: the temp folder's stoker-bench-tokens).")
  Path data;

  @Option(
      names = "--rtt-ms",
      paramLabel = "MS",
      description =
          "Round trip of --workload object-store's link to its S3 server, in milliseconds; 0 with "
              + "--link-gb-s 0: the server on the loopback, unshaped (default: "
              + ObjectStoreBench.DEFAULT_RTT_MS
              + ").")
  Double rttMs;

  @Option(
      names = "--link-gb-s",
      paramLabel = "GB_S",
      description =
          "Rate of --workload object-store's link, in GB/s; 0: no limit (default: "
              + ObjectStoreBench.DEFAULT_LINK_GB_S
              + ", 1 Gbit/s; with --rtt-ms 0 also 0).")
  Double linkGbS;

  @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
  Path json;

  @Option(
      names = "--plot",
      paramLabel = "FILE.png",
      description = "Also draw samples/s per configuration as a PNG bar chart.")
  Path plot;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help.")
  boolean help;

  @Override
  public Integer call() throws IOException {
    ranks = rankCounts.get(0);
    checkOptions();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (AllReduceBench.WORKLOAD.equals(workload)) {
      return allReduce(out, err);
    }
    SparkBench spark = new SparkBench(json, out, err);
    if ("spark".equals(workload)) {
      return spark.ingest(rows, batchSize, epochs, workers.get(0), ranks, repeats);
    }
    if (SourceBench.WORKLOAD.equals(workload)) {
      return spark.source(rows, batchSize, ranks, repeats);
    }
    if (DeviceBench.WORKLOAD.equals(workload)) {
      return spark.device(rows, batchSize, workers.get(0), ranks, repeats);
    }
    if (ResumeBench.WORKLOAD.equals(workload)) {
      return spark.resume(rows, batchSize, workers.get(0), ranks, repeats);
    }
    if (PythonBench.WORKLOAD.equals(workload)) {
      return spark.python(
          rows,
          batchSize,
          ranks,
          repeats,
          given("--workers") ? workers.get(0) : null,
          epochs,
          given("--warmup") ? warmup : PythonBench.DEFAULT_WARMUPS);
    }
    if (ShuffleBench.WORKLOAD.equals(workload)) {
      return spark.shuffle(rows, batchSize, ranks, given("--epochs") ? epochs : SHUFFLE_EPOCHS);
    }
    if (ImagesBench.WORKLOAD.equals(workload)) {
      return spark.images(
          rows,
          batchSize,
          ranks,
          given("--repeats") ? repeats : IMAGES_REPEATS,
          given("--workers") ? workers : ImagesBench.defaultStokerWorkers(),
          photos != null ? photos : Path.of(ImagesBench.DEFAULT_PHOTOS),
          ImagesBench.defaultPython());
    }
    if (TokensBench.WORKLOAD.equals(workload)) {
      return spark.tokens(
          new TokensBench.Config(
              documents != null ? documents : TokensBench.DEFAULT_DOCUMENTS,
              ranks,
              given("--batch-size") ? batchSize : TokensBench.DEFAULT_BATCH_SIZE,
              TokensBench.DEFAULT_LENGTH,
              given("--repeats") ? repeats : IMAGES_REPEATS,
              null,
              workers,
              data != null ? data : TokensBench.defaultData(),
              TokensBench.defaultPython()));
    }
    if (ObjectStoreBench.WORKLOAD.equals(workload)) {
      double rtt = rttMs != null ? rttMs : ObjectStoreBench.DEFAULT_RTT_MS;
      double link = linkGbS != null ? linkGbS : rtt == 0 ? 0 : ObjectStoreBench.DEFAULT_LINK_GB_S;
      return spark.objectStore(
          new ObjectStoreBench.Config(
              rows, ranks, batchSize, given("--repeats") ? repeats : IMAGES_REPEATS, rtt, link));
    }
    if (TrainBench.WORKLOAD.equals(workload)) {
      return spark.train(rows, batchSize, given("--workers") ? workers.get(0) : 1, ranks, repeats);
    }
    Sweep sweep =
        Sweep.builder()
            .workers(workers)
            .prefetchFactors(prefetch)
            .pinMemory(pinMemory)
            .batchSize(batchSize)
            .warmupBatches(warmup)
            .measuredBatches(batches)
            .repeats(repeats)
            .build();
    Workload dataset;
    try {
      err.printf(Locale.ROOT, "stoker: preparing %,d samples of '%s'...%n", samples, workload);
      err.flush();
      dataset = ReferenceWorkloads.of(workload, samples, 0, chunkRows);
    } catch (OutOfMemoryError e) {
      err.println(
          "stoker: not enough memory for "
              + samples
              + " samples of '"
              + workload
              + "': "
              + e.getMessage()
              + " (set larger -Xmx / -XX:MaxDirectMemorySize in "
              + "STOKER_JAVA_OPTS, or lower --samples)");
      return 1;
    }
    SweepResult result;
    try (MemcpyMeter meter = MemcpyBaseline.meter(ReferenceWorkloads.IMAGE_BYTES, batchSize)) {
      result = sweep.run(dataset, () -> meter.measure(MEMCPY_ROUNDS), new Progress(err));
    }
    BenchReport report =
        new BenchReport(
            workload, isStream() ? chunkRows : null, sweep, result, dataset.bytesPerSample());
    report.print(out);
    if (json != null) {
      Files.writeString(json, report.json());
      out.println("json: " + json);
    }
    if (plot != null) {
      BenchChart.writePng(plot, report);
      out.println("plot: " + plot);
    }
    out.flush();
    return 0;
  }

  /** --workload allreduce: star against ring per world size and length. */
  private int allReduce(PrintWriter out, PrintWriter err) throws IOException {
    AllReduceResult result =
        AllReduceBench.run(
            new AllReduceBench.Config(rankCounts, floats, repeats, given("--warmup") ? warmup : 2),
            err);
    result.print(out);
    if (json != null) {
      Files.writeString(json, result.json());
      out.println("json: " + json);
    }
    out.flush();
    return 0;
  }

  private void checkOptions() {
    if (AllReduceBench.WORKLOAD.equals(workload)) {
      checkAllReduce();
      return;
    }
    if (TokensBench.WORKLOAD.equals(workload)) {
      checkTokens();
      return;
    }
    for (String option : List.of("--rtt-ms", "--link-gb-s")) {
      if (given(option) && !ObjectStoreBench.WORKLOAD.equals(workload)) {
        throw new ParameterException(
            spec.commandLine(),
            option
                + " with --workload "
                + workload
                + " (expected: only with --workload "
                + ObjectStoreBench.WORKLOAD
                + ")");
      }
    }
    if ((rttMs != null && (rttMs < 0 || rttMs.isNaN()))
        || (linkGbS != null && (linkGbS < 0 || linkGbS.isNaN()))) {
      throw new ParameterException(
          spec.commandLine(),
          "--rtt-ms "
              + rttMs
              + ", --link-gb-s "
              + linkGbS
              + " (expected: numbers >= 0; 0 and 0 for the loopback, unshaped)");
    }
    for (String option : List.of("--documents", "--data")) {
      if (given(option)) {
        throw new ParameterException(
            spec.commandLine(),
            option
                + " with --workload "
                + workload
                + " (expected: only with --workload "
                + TokensBench.WORKLOAD
                + ")");
      }
    }
    if (PythonBench.WORKLOAD.equals(workload) && !given("--batch-size")) {
      batchSize = PythonBench.DEFAULT_BATCH_SIZE;
    }
    if (rankCounts.size() > 1) {
      throw new ParameterException(
          spec.commandLine(),
          "--ranks: "
              + rankCounts
              + " with "
              + "--workload "
              + workload
              + " (expected: one world size; only --workload "
              + AllReduceBench.WORKLOAD
              + " takes a list)");
    }
    if (given("--floats")) {
      throw new ParameterException(
          spec.commandLine(),
          "--floats with --workload "
              + workload
              + " (expected: only with --workload "
              + AllReduceBench.WORKLOAD
              + ")");
    }
    if ("spark".equals(workload)
        || DeviceBench.WORKLOAD.equals(workload)
        || ResumeBench.WORKLOAD.equals(workload)
        || PythonBench.WORKLOAD.equals(workload)
        || TrainBench.WORKLOAD.equals(workload)
        || ImagesBench.WORKLOAD.equals(workload)
        || ShuffleBench.WORKLOAD.equals(workload)
        || ObjectStoreBench.WORKLOAD.equals(workload)) {
      SparkBench.checkOptions(spec.commandLine(), workload);
    }
    if (photos != null && !ImagesBench.WORKLOAD.equals(workload)) {
      throw new ParameterException(
          spec.commandLine(),
          "--photos with --workload "
              + workload
              + " (expected: only with --workload "
              + ImagesBench.WORKLOAD
              + ")");
    }
    if (ImagesBench.WORKLOAD.equals(workload) && given("--workers") && workers.contains(0)) {
      throw new ParameterException(
          spec.commandLine(),
          "--workers: "
              + workers
              + " with --workload "
              + workload
              + " (expected: counts >= 1; the transforms run in the loader's workers)");
    }
    if (!"spark".equals(workload)
        && !PythonBench.WORKLOAD.equals(workload)
        && !ShuffleBench.WORKLOAD.equals(workload)
        && given("--epochs")) {
      throw new ParameterException(
          spec.commandLine(),
          "--epochs: "
              + epochs
              + " with --workload "
              + workload
              + " (expected: only with --workload spark, "
              + PythonBench.WORKLOAD
              + " or "
              + ShuffleBench.WORKLOAD
              + ")");
    }
    if (SPARK_WORKLOADS.contains(workload)) {
      checkRows();
    } else if (rows != null) {
      throw new ParameterException(
          spec.commandLine(),
          "--rows: "
              + rows
              + " with --workload "
              + workload
              + " (expected: only with --workload "
              + String.join(", ", SPARK_WORKLOADS)
              + "; the in-memory workloads take --samples)");
    } else if (samples < batchSize) {
      throw new ParameterException(
          spec.commandLine(),
          String.format(
              "--samples: %d (expected: at least --batch-size = %d, for one full batch)",
              samples, batchSize));
    }
    if (plot != null && !plot.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
      throw new ParameterException(
          spec.commandLine(),
          "--plot: '"
              + plot
              + "' (expected: a file name ending in .png; PNG is the only chart format)");
    }
    if (chunkRows > ReferenceWorkloads.MAX_CHUNK_ROWS) {
      throw new ParameterException(
          spec.commandLine(),
          String.format(
              "--chunk-rows: %d (expected: at most %d, so that a chunk's images fit in 1 GiB)",
              chunkRows, ReferenceWorkloads.MAX_CHUNK_ROWS));
    }
    if (!isStream() && spec.commandLine().getParseResult().hasMatchedOption("--chunk-rows")) {
      throw new ParameterException(
          spec.commandLine(),
          "--chunk-rows: "
              + chunkRows
              + " with --workload "
              + workload
              + " (expected: only with --workload stream)");
    }
    if (SPARK_WORKLOADS.contains(workload) && plot != null) {
      throw new ParameterException(
          spec.commandLine(),
          "--plot with --workload "
              + workload
              + " (expected: only with "
              + String.join(", ", ReferenceWorkloads.NAMES)
              + ")");
    }
    checkFolder("--json", json);
    checkFolder("--plot", plot);
  }

  /**
   * Resolves the rows of a spark workload: --rows, else --samples (the older name), else the
   * default; at least one full batch on every rank.
   */
  private void checkRows() {
    if (rows != null && given("--samples")) {
      throw new ParameterException(
          spec.commandLine(),
          "--samples: "
              + samples
              + " and --rows: "
              + rows
              + " with --workload "
              + workload
              + " (expected: one of them; --rows is the "
              + "spark workloads' name for the rows)");
    }
    if (rows == null) {
      rows =
          given("--samples")
              ? samples
              : ImagesBench.WORKLOAD.equals(workload)
                  ? ImagesBench.DEFAULT_IMAGES
                  : TrainBench.WORKLOAD.equals(workload)
                      ? TrainBench.DEFAULT_ROWS
                      : PythonBench.WORKLOAD.equals(workload)
                          ? PythonBench.DEFAULT_ROWS
                          : SparkBench.DEFAULT_ROWS;
    }
    long least = (long) ranks * batchSize;
    if (rows < least) {
      throw new ParameterException(
          spec.commandLine(),
          String.format(
              Locale.ROOT,
              "--rows: %d (expected: at least --ranks x --batch-size = %d x %d = %d, a full batch "
                  + "on every rank; raise --rows, or lower --ranks or --batch-size)",
              rows,
              ranks,
              batchSize,
              least));
    }
  }

  /** The options --workload allreduce takes: --ranks (at least 2), --floats, --repeats. */
  private void checkAllReduce() {
    for (int count : rankCounts) {
      if (count < 2) {
        throw new ParameterException(
            spec.commandLine(),
            "--ranks: "
                + count
                + " with "
                + "--workload "
                + workload
                + " (expected: >= 2; one rank reduces nothing)");
      }
    }
    for (String option :
        List.of(
            "--rows",
            "--samples",
            "--batch-size",
            "--workers",
            "--prefetch",
            "--pin-memory",
            "--chunk-rows",
            "--batches",
            "--epochs",
            "--plot")) {
      if (given(option)) {
        throw new ParameterException(
            spec.commandLine(),
            option
                + " with --workload "
                + workload
                + " (expected: only --ranks, --floats, --repeats, --warmup and --json)");
      }
    }
    checkFolder("--json", json);
  }

  /** The options --workload tokens takes: {@link #TOKENS_OPTIONS}, one world size. */
  private void checkTokens() {
    for (OptionSpec option : spec.commandLine().getParseResult().matchedOptions()) {
      if (!TOKENS_OPTIONS.contains(option.longestName())) {
        throw new ParameterException(
            spec.commandLine(),
            option.longestName()
                + " with --workload "
                + workload
                + " (expected: only "
                + String.join(", ", TOKENS_OPTIONS.subList(1, TOKENS_OPTIONS.size()))
                + "; --documents counts its documents)");
      }
    }
    if (rankCounts.size() > 1) {
      throw new ParameterException(
          spec.commandLine(),
          "--ranks: "
              + rankCounts
              + " with --workload "
              + workload
              + " (expected: one world size)");
    }
    checkFolder("--json", json);
  }

  private boolean given(String option) {
    return spec.commandLine().getParseResult().hasMatchedOption(option);
  }

  private boolean isStream() {
    return "stream".equals(workload) || "typed-stream".equals(workload);
  }

  private void checkFolder(String option, Path file) {
    if (file == null) {
      return;
    }
    Path folder = file.toAbsolutePath().getParent();
    if (folder != null && !Files.isDirectory(folder)) {
      throw new ParameterException(
          spec.commandLine(),
          option
              + ": '"
              + file
              + "' (expected: a file in an existing folder; '"
              + folder
              + "' does not exist)");
    }
  }

  /** Shows each run and each memcpy measurement on stderr as it ends. */
  private static final class Progress implements Sweep.Listener {
    private final PrintWriter err;

    Progress(PrintWriter err) {
      this.err = err;
    }

    @Override
    public void onMemcpy(int round, int rounds, MemcpyLimits limits) {
      err.printf(
          Locale.ROOT,
          "stoker: memcpy before round %d/%d: %,.0f MB/s with 1 thread, " + "%,.0f MB/s with %d%n",
          round,
          rounds,
          limits.oneThreadMbPerSecond(),
          limits.allCoresMbPerSecond(),
          limits.threads());
      err.flush();
    }

    @Override
    public void onRun(SweepConfig config, int run, int total, BenchmarkResult result) {
      err.printf(
          Locale.ROOT,
          "stoker: [%d/%d] %-30s %,10.0f samples/s%n",
          run,
          total,
          config.label(),
          result.samplesPerSecond());
      err.flush();
    }
  }
}
