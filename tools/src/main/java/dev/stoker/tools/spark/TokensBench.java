package dev.stoker.tools.spark;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Runs the {@code tokens} benchmark: documents of token ids with a real corpus's long tail ({@link
 * TokenData}) packed into rows of {@code length} tokens, read through {@code format("stoker")} with
 * {@code pack} on {@code ranks} ranks of an embedded Spark ({@code local[ranks]}), against the
 * PyTorch {@code IterableDataset} most users would write over the same Parquet files (PyArrow and
 * NumPy, {@link TokensPeer}) on as many processes. Each round runs one Stoker epoch (shuffled, a
 * new epoch each round), then the peer's epochs per worker count; the first round warms up, the
 * medians of the others count. Both sides consume every batch, touching its tensors.
 *
 * <p>Stoker's time runs on the driver from {@code load} to the end of the job; its time to the
 * first batch from {@code load} to the moment the slowest rank has its first batch ({@code
 * System.nanoTime()}, one clock on {@code local[N]}, where the ranks are threads of the driver's
 * JVM). The peer times itself the same way, from its epoch's start, the DataLoader's workers
 * starting within it.
 */
public final class TokensBench {
  /** The workload's name on the command line. */
  public static final String WORKLOAD = "tokens";

  /** Documents unless told otherwise. */
  public static final int DEFAULT_DOCUMENTS = 1_000_000;

  /** Tokens per packed row. */
  public static final int DEFAULT_LENGTH = 2048;

  /** Rows per batch unless told otherwise. */
  public static final int DEFAULT_BATCH_SIZE = 8;

  /** The generator's seed. */
  static final long SEED = 1;

  /** What to run; {@code stokerWorkers} null leaves the loader's default numWorkers. */
  public record Config(
      long documents,
      int ranks,
      int batchSize,
      int length,
      int repeats,
      Integer stokerWorkers,
      List<Integer> peerWorkers,
      Path data,
      String python) {
    public Config {
      if (documents <= 0 || ranks <= 0 || batchSize <= 0 || length <= 0 || repeats <= 0) {
        throw new IllegalArgumentException(
            String.format(
                "documents %d, ranks %d, batchSize %d, length %d, repeats %d (expected: each > 0)",
                documents, ranks, batchSize, length, repeats));
      }
      if (stokerWorkers != null && stokerWorkers < 0) {
        throw new IllegalArgumentException(
            "stokerWorkers: " + stokerWorkers + " (expected: >= 0, or none)");
      }
      if (peerWorkers.isEmpty() || peerWorkers.stream().anyMatch(w -> w < 0)) {
        throw new IllegalArgumentException(
            "peerWorkers: " + peerWorkers + " (expected: one or more counts >= 0)");
      }
      peerWorkers = List.copyOf(peerWorkers);
    }

    /** Tokens of one full batch on every rank. */
    long tokensPerStep() {
      return (long) ranks * batchSize * length;
    }

    /** Rows a packed epoch of {@code tokens} hands out: the most full batches every rank has. */
    long stokerRows(long tokens) {
      return tokens / tokensPerStep() * ranks * batchSize;
    }
  }

  /** One Stoker epoch: its rows over all ranks, seconds and seconds to the first batch. */
  record Epoch(long rows, double seconds, double firstBatchSeconds) {}

  private TokensBench() {}

  /** Where the documents are kept between runs unless told otherwise: the temp folder. */
  public static Path defaultData() {
    return Path.of(System.getProperty("java.io.tmpdir"), "stoker-bench-tokens");
  }

  /**
   * The Python of the PyTorch side: {@code $STOKER_PYTHON}, else Debian's {@code /usr/bin/python3}
   * where it exists, else {@code python3}.
   */
  public static String defaultPython() {
    return TorchImagesPeer.defaultPython();
  }

  /** Why {@code python} cannot run the PyTorch side (torch, numpy or pyarrow missing), or null. */
  public static String missingPeer(String python) {
    return TokensPeer.missing(python);
  }

  /**
   * Runs the benchmark, telling each epoch on {@code progress}. The documents are written under
   * {@code config.data()}, or reused from there.
   *
   * @throws IllegalStateException if the peer's Python lacks torch, numpy or pyarrow, saying how to
   *     get them
   * @throws IllegalArgumentException if the documents do not fill one batch on every rank
   */
  public static TokensBenchResult run(Config config, PrintWriter progress) {
    String missing = TokensPeer.missing(config.python());
    if (missing != null) {
      throw new IllegalStateException(missing);
    }
    long started = System.nanoTime();
    TokenData.Written data = TokenData.write(config.data(), config.documents(), SEED);
    double writeSeconds = (System.nanoTime() - started) / 1e9;
    progress.printf(
        Locale.ROOT,
        "stoker: %s %,d documents, %,d tokens (%.0f on average) in %d files in %s (%.1f s)%n",
        data.reused() ? "reused" : "wrote",
        data.documents(),
        data.tokens(),
        (double) data.tokens() / data.documents(),
        data.files().size(),
        data.dir(),
        writeSeconds);
    progress.flush();
    if (config.stokerRows(data.tokens()) == 0) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "documents: %d (%d tokens; expected: at least ranks x batchSize x length = %d "
                  + "tokens, a full batch on every rank; give more documents)",
              config.documents(),
              data.tokens(),
              config.tokensPerStep()));
    }
    Path scratch = SourceBench.tempFolder("stoker-tokens-");
    SparkSession spark = SourceBench.session(config.ranks(), WORKLOAD);
    try {
      TokensPeer peer = TokensPeer.in(scratch, config.python());
      List<Epoch> stoker = new ArrayList<>();
      Map<Integer, List<TokensPeer.Epoch>> torch = new LinkedHashMap<>();
      config.peerWorkers().forEach(w -> torch.put(w, new ArrayList<>()));
      for (int round = 0; round <= config.repeats(); round++) {
        String label = round == 0 ? "warm-up" : "round " + round + "/" + config.repeats();
        Epoch epoch = stokerEpoch(spark, data, config, round);
        tell(
            progress,
            label,
            "format(\"stoker\")",
            "",
            epoch.rows() * config.length() / epoch.seconds(),
            epoch.firstBatchSeconds());
        if (round > 0) {
          stoker.add(epoch);
        }
        Map<Integer, TokensPeer.Epoch> epochs =
            peer.run(
                data.dir(),
                config.length(),
                config.batchSize(),
                config.ranks(),
                config.peerWorkers(),
                round);
        for (Map.Entry<Integer, TokensPeer.Epoch> e : epochs.entrySet()) {
          tell(
              progress,
              label,
              "torch DataLoader",
              "workers " + e.getKey(),
              e.getValue().tokensPerSecond(),
              e.getValue().firstBatchSeconds());
          if (round > 0) {
            torch.get(e.getKey()).add(e.getValue());
          }
        }
      }
      return new TokensBenchResult(config, data, writeSeconds, stoker, torch);
    } finally {
      spark.stop();
      SourceBench.delete(scratch);
    }
  }

  /** The packed read of {@code data} on every rank, as a training step would take it. */
  static DataFrameReader reader(SparkSession spark, Config config, int epoch) {
    DataFrameReader reader =
        spark
            .read()
            .format("stoker")
            .option("pack", config.length())
            .option("batchSize", config.batchSize())
            .option("worldSize", config.ranks())
            .option("shuffle", true)
            .option("seed", 1)
            .option("epoch", epoch);
    return config.stokerWorkers() == null
        ? reader
        : reader.option("numWorkers", config.stokerWorkers());
  }

  /**
   * One epoch of {@code format("stoker")} with {@code pack}: every rank's columnar batches, each
   * row's {@code input_ids}, {@code position_ids} and {@code document_ids} touched.
   *
   * @throws IllegalStateException if the ranks' rows are not the most full batches every rank can
   *     have of the documents' tokens
   */
  static Epoch stokerEpoch(SparkSession spark, TokenData.Written data, Config config, int epoch) {
    long started = System.nanoTime();
    Dataset<Row> df = reader(spark, config, epoch).load(data.dir().toString());
    BatchScanExec scan = StokerRead.scan(df.queryExecution().executedPlan());
    StructType schema = scan.scan().readSchema();
    int[] columns = {
      schema.fieldIndex("input_ids"),
      schema.fieldIndex("position_ids"),
      schema.fieldIndex("document_ids")
    };
    int last = config.length() - 1;
    List<long[]> ranks =
        scan.executeColumnar().toJavaRDD().mapPartitions(new Consume(columns, last)).collect();
    double seconds = (System.nanoTime() - started) / 1e9;
    long rows = 0;
    long firstBatch = started;
    for (long[] rank : ranks) {
      rows += rank[0];
      firstBatch = Math.max(firstBatch, rank[1]);
    }
    long expected = config.stokerRows(data.tokens());
    if (rows != expected || ranks.size() != config.ranks()) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "format(\"stoker\") packed %d rows on %d ranks (expected: %d, the most full "
                  + "batches of %d rows of %d tokens every one of %d ranks has of %d tokens)",
              rows,
              ranks.size(),
              expected,
              config.batchSize(),
              config.length(),
              config.ranks(),
              data.tokens()));
    }
    return new Epoch(rows, seconds, (firstBatch - started) / 1e9);
  }

  /**
   * A rank's consumer, a class of its own rather than a lambda: Spark's closure cleaner then has no
   * bytecode to read for it at every epoch's job.
   */
  private static final class Consume implements FlatMapFunction<Iterator<ColumnarBatch>, long[]> {
    private static final long serialVersionUID = 1L;
    private final int[] columns;
    private final int last;

    Consume(int[] columns, int last) {
      this.columns = columns;
      this.last = last;
    }

    @Override
    public Iterator<long[]> call(Iterator<ColumnarBatch> batches) {
      return consume(batches, columns, last);
    }
  }

  /** A rank's rows and when its first batch came ({@code System.nanoTime()}). */
  private static Iterator<long[]> consume(
      Iterator<ColumnarBatch> batches, int[] columns, int last) {
    long rows = 0;
    long first = 0;
    long touched = 0;
    while (batches.hasNext()) {
      ColumnarBatch batch = batches.next();
      if (rows == 0) {
        first = System.nanoTime();
      }
      ColumnVector ids = batch.column(columns[0]);
      ColumnVector positions = batch.column(columns[1]);
      ColumnVector documents = batch.column(columns[2]);
      for (int r = 0; r < batch.numRows(); r++) {
        touched +=
            ids.getArray(r).getInt(0)
                + positions.getArray(r).getInt(last)
                + documents.getArray(r).getInt(last);
      }
      rows += batch.numRows();
    }
    return List.of(new long[] {rows, first, touched}).iterator();
  }

  private static void tell(
      PrintWriter progress, String label, String way, String workers, double rate, double first) {
    progress.printf(
        Locale.ROOT,
        "stoker: %-9s %-18s %-10s %,12.0f tokens/s, first batch %.2f s%n",
        label,
        way,
        workers,
        rate,
        first);
    progress.flush();
  }
}
