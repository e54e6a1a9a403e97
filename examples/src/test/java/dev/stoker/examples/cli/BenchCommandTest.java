package dev.stoker.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchCommandTest {
  private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  private static final List<String> CONFIG_FIELDS =
      List.of(
          "workers",
          "prefetch",
          "pin_memory",
          "samples_per_s",
          "mb_per_s",
          "ratio_to_memcpy",
          "ratio_to_all_cores",
          "verdict",
          "alloc_bytes_per_batch",
          "gc_collections");
  private static final int CORES = Runtime.getRuntime().availableProcessors();

  @TempDir Path dir;

  private record Run(int exitCode, String out, String err) {}

  private static Run stoker(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = StokerCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private static String[] tiny(String workload, String... more) {
    String[] base = {
      "bench",
      "--workload",
      workload,
      "--samples",
      "2000",
      "--batches",
      "10",
      "--warmup",
      "2",
      "--repeats",
      "1"
    };
    String[] all = Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> json(Path file) throws IOException {
    return (Map<String, Object>) MiniJson.parse(Files.readString(file));
  }

  @Test
  @SuppressWarnings("unchecked")
  void benchPrintsATableAndWritesJsonWithOneConfigPerCombinationAndAPng() throws IOException {
    Path json = dir.resolve("bench.json");
    Path png = dir.resolve("bench.png");

    Run run =
        stoker(
            tiny(
                "copy",
                "--workers",
                "0,1",
                "--prefetch",
                "2",
                "--json",
                json.toString(),
                "--plot",
                png.toString()));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(
            "workers",
            "samples/s",
            "/1 thread",
            "/" + CORES + " cores",
            "verdict",
            "alloc B/batch",
            "GC",
            "memcpy, 1 thread",
            "memcpy, " + CORES + " threads (all cores)",
            "best: workers=");
    Map<String, Object> doc = json(json);
    assertThat(doc)
        .containsEntry("workload", "copy")
        .containsEntry("samples", 2000.0)
        .containsEntry("batch_size", 64.0)
        .containsEntry("chunk_rows", null)
        .containsEntry("memcpy_threads", (double) CORES)
        .containsKeys("memcpy_mb_s", "memcpy_all_cores_mb_s", "configs", "best");
    assertThat((Double) doc.get("memcpy_mb_s")).isPositive();
    assertThat((Double) doc.get("memcpy_all_cores_mb_s")).isPositive();
    List<Map<String, Object>> configs = (List<Map<String, Object>>) doc.get("configs");
    assertThat(configs).hasSize(2);
    configs.forEach(c -> assertThat(c).containsKeys(CONFIG_FIELDS.toArray(String[]::new)));
    assertThat(configs.get(0))
        .containsEntry("workers", 0.0)
        .containsEntry("prefetch", null)
        .containsEntry("pin_memory", false);
    assertThat(configs.get(1)).containsEntry("workers", 1.0).containsEntry("prefetch", 2.0);
    double fastest =
        configs.stream().mapToDouble(c -> (Double) c.get("samples_per_s")).max().orElseThrow();
    assertThat((Map<String, Object>) doc.get("best")).containsEntry("samples_per_s", fastest);
    for (Map<String, Object> c : configs) {
      double mb = (Double) c.get("mb_per_s");
      assertThat((Double) c.get("ratio_to_all_cores"))
          .isCloseTo(mb / (Double) doc.get("memcpy_all_cores_mb_s"), within(1e-3));
      assertThat((Double) c.get("gc_collections")).isNotNegative();
    }
    byte[] image = Files.readAllBytes(png);
    assertThat(Arrays.copyOf(image, PNG_MAGIC.length)).isEqualTo(PNG_MAGIC);
  }

  @Test
  @SuppressWarnings("unchecked")
  void gridCoversWorkersPrefetchAndPinningWithOnePrefetchlessConfigPerPinningForZeroWorkers()
      throws IOException {
    Path json = dir.resolve("grid.json");

    Run run =
        stoker(
            tiny(
                "normalize",
                "--workers",
                "0,2",
                "--prefetch",
                "2,4",
                "--pin-memory",
                "false,true",
                "--batch-size",
                "32",
                "--json",
                json.toString()));

    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, Object> doc = json(json);
    assertThat(doc).containsEntry("workload", "normalize").containsEntry("batch_size", 32.0);
    List<Map<String, Object>> configs = (List<Map<String, Object>>) doc.get("configs");
    assertThat(configs)
        .extracting(c -> c.get("workers") + "/" + c.get("prefetch") + "/" + c.get("pin_memory"))
        .containsExactly(
            "0.0/null/false",
            "0.0/null/true",
            "2.0/2.0/false",
            "2.0/4.0/false",
            "2.0/2.0/true",
            "2.0/4.0/true");
  }

  @Test
  @SuppressWarnings("unchecked")
  void streamWorkloadRunsInChunksOfChunkRows() throws IOException {
    Path json = dir.resolve("stream.json");

    Run run =
        stoker(tiny("stream", "--chunk-rows", "500", "--workers", "2", "--json", json.toString()));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("workload stream (chunks of 500 rows)");
    Map<String, Object> doc = json(json);
    assertThat(doc)
        .containsEntry("workload", "stream")
        .containsEntry("samples", 2000.0)
        .containsEntry("chunk_rows", 500.0)
        .containsEntry("bytes_per_sample", 49_152.0);
    List<Map<String, Object>> configs = (List<Map<String, Object>>) doc.get("configs");
    assertThat(configs).hasSize(2);
    configs.forEach(c -> assertThat((Double) c.get("samples_per_s")).isPositive());
  }

  @Test
  void badValuesExitWithTwoNamingTheOptionAndTheValue() {
    assertBad(tiny("copy", "--workers", "0,-1"), "--workers", "-1");
    assertBad(
        new String[] {"bench", "--workload", "foo"},
        "--workload",
        "'foo'",
        "copy, normalize, stream");
    assertBad(tiny("stream", "--chunk-rows", "0"), "--chunk-rows", "0 (expected: >= 1)");
    assertBad(
        tiny("stream", "--chunk-rows", "30000"), "--chunk-rows: 30000", "expected: at most 21845");
    assertBad(
        tiny("copy", "--chunk-rows", "1024"),
        "--chunk-rows: 1024 with --workload copy (expected: only with --workload stream)");
    assertBad(tiny("copy", "--prefetch", "0"), "--prefetch", "0 (expected: >= 1)");
    assertBad(tiny("copy", "--pin-memory", "maybe"), "--pin-memory", "'maybe'");
    assertBad(tiny("copy", "--repeats", "x"), "--repeats", "'x'");
    assertBad(
        tiny("copy", "--plot", dir.resolve("chart.svg").toString()), "--plot", "chart.svg", ".png");
    assertBad(
        tiny("copy", "--json", dir.resolve("no/such/folder/out.json").toString()),
        "--json",
        "does not exist");
    assertBad(
        new String[] {"bench", "--workload", "copy", "--samples", "10"},
        "--samples",
        "10",
        "--batch-size = 64");
    assertBad(new String[] {"bench"}, "--workload");
    assertBad(
        new String[] {
          "bench", "--workload", "spark-source", "--plot", dir.resolve("chart.png").toString()
        },
        "--plot with --workload spark-source (expected: only "
            + "with copy, normalize, stream, typed, typed-stream)");
  }

  @Test
  void tokensTakesDocumentsAndItsOwnOptionsOnly() {
    assertBad(
        new String[] {"bench", "--workload", "tokens", "--rows", "1000"},
        "--rows with --workload tokens (expected: only --documents, --data, --ranks, "
            + "--batch-size, --workers, --repeats, --json; --documents counts its documents)");
    assertBad(
        new String[] {"bench", "--workload", "tokens", "--ranks", "2,4"},
        "--ranks: [2, 4] with --workload tokens (expected: one world size)");
    assertBad(
        new String[] {"bench", "--workload", "tokens", "--documents", "0"},
        "'0' (expected: a count >= 1");
    assertBad(
        tiny("copy", "--documents", "1k"),
        "--documents with --workload copy (expected: only with --workload tokens)");
    assertBad(
        new String[] {"bench", "--workload", "spark", "--data", "/tmp"},
        "--data with --workload spark (expected: only with --workload tokens)");
  }

  @Test
  void objectStoreTakesItsLinkAndNoOtherWorkloadDoes() {
    assertBad(
        new String[] {"bench", "--workload", "spark-source", "--rtt-ms", "20"},
        "--rtt-ms with --workload spark-source (expected: only with --workload object-store)");
    assertBad(
        tiny("copy", "--link-gb-s", "1"),
        "--link-gb-s with --workload copy (expected: only with --workload object-store)");
    assertBad(
        new String[] {"bench", "--workload", "object-store", "--rtt-ms", "-1"},
        "--rtt-ms -1.0, --link-gb-s null (expected: numbers >= 0; 0 and 0 for the loopback, "
            + "unshaped)");
    assertBad(
        new String[] {"bench", "--workload", "object-store", "--plot", "x.png"},
        "--plot with --workload object-store");
  }

  @Test
  void sparkWorkloadsTakeRowsOfAtLeastOneFullBatchPerRank() {
    assertBad(
        new String[] {"bench", "--workload", "spark", "--rows", "0"},
        "--rows",
        "0 (expected: >= 1)");
    assertBad(
        new String[] {"bench", "--workload", "spark", "--rows", "100"},
        "--rows: 100 (expected: at least --ranks x --batch-size = 2 x 64 = 128, a full batch on "
            + "every rank; raise --rows, or lower --ranks or --batch-size)");
    assertBad(
        new String[] {
          "bench",
          "--workload",
          "spark-device",
          "--rows",
          "1000",
          "--ranks",
          "4",
          "--batch-size",
          "256"
        },
        "--rows: 1000 (expected: at least --ranks x --batch-size = " + "4 x 256 = 1024");
    assertBad(
        new String[] {"bench", "--workload", "spark-source", "--samples", "100"},
        "--rows: 100 (expected: at least --ranks x --batch-size = 2 x 64 = 128");
    assertBad(
        new String[] {"bench", "--workload", "spark", "--samples", "1000", "--rows", "2000"},
        "--samples: 1000 and --rows: 2000 with --workload spark (expected: one of them; "
            + "--rows is the spark workloads' name for the rows)");
    assertBad(
        tiny("copy", "--rows", "1000"),
        "--rows: 1000 with --workload copy (expected: only "
            + "with --workload spark, spark-source, spark-device, resume, python, train, images, shuffle, object-store; the "
            + "in-memory "
            + "workloads take --samples)");
    assertBad(
        new String[] {"bench", "--workload", "spark-device", "--warmup", "3"},
        "--warmup with --workload spark-device (expected: only with copy, normalize, stream, "
            + "typed, typed-stream; the spark-device workload times whole epochs on --ranks "
            + "ranks)");
    assertBad(
        new String[] {"bench", "--workload", "spark-device", "--epochs", "2"},
        "--epochs: 2 with --workload spark-device (expected: only with --workload spark, python or shuffle)");
  }

  @Test
  @SuppressWarnings("unchecked")
  void sparkDeviceWritesBothPathsRowsPerSecondAndTheFirstBatch() throws IOException {
    Path json = dir.resolve("device.json");

    Run run =
        stoker(
            "bench",
            "--workload",
            "spark-device",
            "--rows",
            "3000",
            "--repeats",
            "1",
            "--json",
            json.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("workload spark-device: 3,000 rows", "device path / read alone: ");
    Map<String, Object> doc = json(json);
    assertThat(doc)
        .containsEntry("workload", "spark-device")
        .containsEntry("rows", 3000.0)
        .containsEntry("ranks", 2.0)
        .containsEntry("device", "cpu");
    assertThat((Double) doc.get("stoker_rows_per_s")).isPositive();
    assertThat((Double) doc.get("read_rows_per_s")).isPositive();
    double seconds = ((List<Double>) doc.get("stoker_seconds")).get(0);
    assertThat((Double) doc.get("first_batch_s")).isPositive().isLessThan(seconds);
  }

  @Test
  void trainWritesTheStepsRateFedByStokerAndFedFromMemory() throws IOException {
    Path json = dir.resolve("train.json");

    Run run =
        stoker(
            "bench",
            "--workload",
            "train",
            "--rows",
            "512",
            "--batch-size",
            "32",
            "--repeats",
            "2",
            "--json",
            json.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(
            "workload train: the demo's CNN step (PyTorch), 2 ranks x 32 "
                + "rows per batch, 1 thread per rank, numWorkers 1",
            "fed by Stoker:",
            "fed from memory:");
    Map<String, Object> doc = json(json);
    assertThat(doc)
        .containsEntry("workload", "train")
        .containsEntry("ranks", 2.0)
        .containsEntry("rows", 512.0)
        .containsKey("verdict");
    assertThat((Double) doc.get("stoker_samples_per_s")).isPositive();
    assertThat((Double) doc.get("ceiling_samples_per_s")).isPositive();
  }

  @Test
  void sparkWorkloadRefusesTheSweepsOptionsAndTheOthersRefuseItsEpochs() {
    assertBad(
        new String[] {"bench", "--workload", "spark", "--prefetch", "2"},
        "--prefetch with --workload spark (expected: only with copy, normalize, stream, typed, "
            + "typed-stream; the spark workload times whole epochs on --ranks ranks)");
    assertBad(
        tiny("copy", "--epochs", "2"),
        "--epochs: 2 with --workload copy (expected: only with --workload spark, python or shuffle)");
  }

  private static void assertBad(String[] args, String... expected) {
    Run run = stoker(args);
    assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
    assertThat(run.err()).contains(expected).contains("Usage:");
  }

  @Test
  void noSubcommandShowsTheUsage() {
    Run run = stoker();

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Missing subcommand", "Usage: stoker", "bench");
  }

  @Test
  void helpListsEveryBenchOption() {
    Run run = stoker("bench", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains(
            "--workload",
            "--samples",
            "--batch-size",
            "--workers",
            "--prefetch",
            "--pin-memory",
            "--chunk-rows",
            "--batches",
            "--warmup",
            "--repeats",
            "--json",
            "--plot",
            "--epochs",
            "--ranks",
            "--rows",
            "copy|normalize|stream|typed|typed-stream|spark|spark-source|spark-device");
  }

  @Test
  @SuppressWarnings("unchecked")
  void allreduceTimesTheStarAndTheRingPerWorldSizeAndLengthWithNcclsBandwidths()
      throws IOException {
    Path json = dir.resolve("allreduce.json");
    Run run =
        stoker(
            "bench",
            "--workload",
            "allreduce",
            "--ranks",
            "2,3",
            "--floats",
            "1k,2000",
            "--repeats",
            "1",
            "--warmup",
            "0",
            "--json",
            json.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("workload allreduce: allReduceSum(float[])")
        .contains("busbw GB/s")
        .contains("json: " + json);
    List<Object> rows = (List<Object>) MiniJson.parse(Files.readString(json));
    assertThat(rows).hasSize(8);
    List<String> seen = new java.util.ArrayList<>();
    for (Object one : rows) {
      Map<String, Object> row = (Map<String, Object>) one;
      assertThat(row)
          .containsOnlyKeys(
              "workload",
              "ranks",
              "floats",
              "algorithm",
              "links",
              "seconds",
              "algbw_gb_s",
              "busbw_gb_s",
              "link_limit_gb_s");
      assertThat(row.get("workload")).isEqualTo("allreduce");
      assertThat(row.get("links")).isEqualTo("loopback (threads of one JVM)");
      assertThat(row.get("link_limit_gb_s")).isNull();
      double ranks = ((Number) row.get("ranks")).doubleValue();
      double floats = ((Number) row.get("floats")).doubleValue();
      double seconds = ((Number) row.get("seconds")).doubleValue();
      double algbw = ((Number) row.get("algbw_gb_s")).doubleValue();
      assertThat(seconds).isPositive();
      assertThat(algbw).isCloseTo(floats * 4 / seconds / 1e9, within(1e-3 + algbw * 1e-3));
      assertThat(((Number) row.get("busbw_gb_s")).doubleValue())
          .isCloseTo(algbw * 2 * (ranks - 1) / ranks, within(1e-3 + algbw * 1e-3));
      seen.add((int) ranks + " " + (int) floats + " " + row.get("algorithm"));
    }
    assertThat(seen)
        .containsExactly(
            "2 1000 star",
            "2 1000 ring",
            "2 2000 star",
            "2 2000 ring",
            "3 1000 star",
            "3 1000 ring",
            "3 2000 star",
            "3 2000 ring");
  }

  @Test
  void allreduceRefusesOptionsOfOtherWorkloadsAndOthersRefuseItsOwn() {
    Run samples = stoker("bench", "--workload", "allreduce", "--samples", "100");
    assertThat(samples.exitCode()).isEqualTo(2);
    assertThat(samples.err())
        .contains(
            "--samples with --workload allreduce (expected: only "
                + "--ranks, --floats, --repeats, --warmup and --json)");
    Run one = stoker("bench", "--workload", "allreduce", "--ranks", "1,2");
    assertThat(one.err())
        .contains(
            "--ranks: 1 with --workload allreduce (expected: >= 2; one " + "rank reduces nothing)");
    Run list = stoker(tiny("copy", "--ranks", "2,4"));
    assertThat(list.exitCode()).isEqualTo(2);
    assertThat(list.err())
        .contains(
            "--ranks: [2, 4] with --workload copy (expected: one world "
                + "size; only --workload allreduce takes a list)");
    Run floats = stoker(tiny("copy", "--floats", "1k"));
    assertThat(floats.err())
        .contains("--floats with --workload copy (expected: only with " + "--workload allreduce)");
    Run bad = stoker("bench", "--workload", "allreduce", "--floats", "10g");
    assertThat(bad.err())
        .contains("'10g' (expected: a count >= 1, e.g. 5000, 100k or 10m, " + "below 2^31)");
  }

  @Test
  void aCommandThatFailsSaysWhyInALineWithoutAStackTrace() throws IOException {
    Path json = Files.createDirectory(dir.resolve("a-folder-not-a-file.json"));
    Run run = stoker(tiny("copy", "--json", json.toString()));

    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    assertThat(run.err())
        .contains("stoker bench: " + json)
        .contains("(STOKER_TRACE=1 shows the stack trace)")
        .doesNotContain("\tat ");
  }
}
