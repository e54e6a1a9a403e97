package dev.stoker.tools.spark;

import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Runs the {@code images} benchmark: JPEG photos at ImageNet-like sizes ({@link ImageData}) read
 * through {@code format("stoker")} with the transforms {@value #SPEC} on {@code ranks} ranks of an
 * embedded Spark ({@code local[ranks]}), against torchvision's same transforms on PIL in a torch
 * {@code DataLoader} over the same JPEG files ({@link TorchImagesPeer}). Each round runs one epoch
 * per Stoker worker count, then the peer's epochs per worker count; the first round warms up, the
 * medians of the others count.
 */
public final class ImagesBench {
  /** The workload's name on the command line. */
  public static final String WORKLOAD = "images";

  /** The transforms of the Stoker side, torchvision's ImageNet training transforms. */
  public static final String SPEC = "decode(rgb)|randomResizedCrop(224)|hflip|normalize(imagenet)";

  /** Where Debian's {@code python3-skimage} keeps its sample photographs. */
  public static final String DEFAULT_PHOTOS = "/usr/lib/python3/dist-packages/skimage/data";

  /** Photos unless told otherwise. */
  public static final int DEFAULT_IMAGES = 2000;

  /** What to run. */
  public record Config(
      int images,
      int ranks,
      int batchSize,
      int repeats,
      List<Integer> stokerWorkers,
      List<Integer> torchWorkers,
      Path photos,
      String python) {
    public Config {
      if (ranks <= 0 || batchSize <= 0 || repeats <= 0) {
        throw new IllegalArgumentException(
            String.format(
                "ranks %d, batchSize %d, repeats %d (expected: each > 0)",
                ranks, batchSize, repeats));
      }
      if (images < (long) ranks * batchSize) {
        throw new IllegalArgumentException(
            String.format(
                "images: %d (expected: at least ranks x batchSize = %d, a full batch on every "
                    + "rank; give more images, or fewer ranks or a smaller batch)",
                images, (long) ranks * batchSize));
      }
      if (stokerWorkers.isEmpty() || stokerWorkers.stream().anyMatch(w -> w < 1)) {
        throw new IllegalArgumentException(
            "stokerWorkers: " + stokerWorkers + " (expected: one or more counts >= 1)");
      }
      if (torchWorkers.isEmpty() || torchWorkers.stream().anyMatch(w -> w < 0)) {
        throw new IllegalArgumentException(
            "torchWorkers: " + torchWorkers + " (expected: one or more counts >= 0)");
      }
      stokerWorkers = List.copyOf(stokerWorkers);
      torchWorkers = List.copyOf(torchWorkers);
    }

    /** Samples the Stoker read hands out per epoch: full batches on every rank. */
    long stokerSamples() {
      return images / ((long) ranks * batchSize) * ranks * batchSize;
    }
  }

  private ImagesBench() {}

  /**
   * The Python of the PyTorch side: {@code $STOKER_PYTHON}, else Debian's {@code /usr/bin/python3}
   * where it exists, else {@code python3}.
   */
  public static String defaultPython() {
    return TorchImagesPeer.defaultPython();
  }

  /**
   * Why {@code python} cannot run the PyTorch side (torch, torchvision or PIL missing), or null.
   */
  public static String missingTorch(String python) {
    return TorchImagesPeer.missing(python);
  }

  /** The worker counts 1, 2 and the core count, without repeats. */
  public static List<Integer> defaultStokerWorkers() {
    int cores = Runtime.getRuntime().availableProcessors();
    return List.copyOf(new java.util.TreeSet<>(List.of(1, 2, cores)));
  }

  /** The worker counts 0, 1, 2, ... up to the core count. */
  public static List<Integer> defaultTorchWorkers() {
    int cores = Runtime.getRuntime().availableProcessors();
    List<Integer> workers = new ArrayList<>();
    for (int w = 0; w <= Math.max(2, cores); w++) {
      workers.add(w);
    }
    return workers;
  }

  /**
   * Runs the benchmark, telling each epoch on {@code progress}; the data lives in a temp folder.
   *
   * @throws IllegalStateException if the peer's Python lacks torch, torchvision or PIL, saying how
   *     to get them
   */
  public static ImagesBenchResult run(Config config, PrintWriter progress) {
    String missing = TorchImagesPeer.missing(config.python());
    if (missing != null) {
      throw new IllegalStateException(missing);
    }
    List<BufferedImage> photos = ImageData.photos(config.photos());
    Path dir = SourceBench.tempFolder("stoker-images-");
    SparkSession spark = SourceBench.session(config.ranks(), WORKLOAD);
    try {
      long started = System.nanoTime();
      ImageData.Written data = ImageData.write(spark, dir, photos, config.images());
      double writeSeconds = (System.nanoTime() - started) / 1e9;
      progress.printf(
          Locale.ROOT,
          "stoker: wrote %,d JPEG photos (%.0f KB each on average, cut from %d photographs in %s)"
              + " as files and Parquet in %.1f s%n",
          data.images(),
          data.bytes() / 1024.0 / data.images(),
          data.photos(),
          config.photos(),
          writeSeconds);
      progress.flush();
      TorchImagesPeer peer = TorchImagesPeer.in(dir, config.python());
      Map<Integer, List<Double>> stoker = rates(config.stokerWorkers());
      Map<Integer, List<Double>> torch = rates(config.torchWorkers());
      for (int round = 0; round <= config.repeats(); round++) {
        String label = round == 0 ? "warm-up" : "round " + round + "/" + config.repeats();
        for (int workers : config.stokerWorkers()) {
          double rate = stokerEpoch(spark, data.parquet(), config, workers, round);
          tell(progress, label, "format(\"stoker\")", workers, rate);
          if (round > 0) {
            stoker.get(workers).add(rate);
          }
        }
        Map<Integer, Double> epochs =
            peer.run(data.files(), config.batchSize(), config.torchWorkers(), progress);
        for (Map.Entry<Integer, Double> e : epochs.entrySet()) {
          tell(progress, label, "torch DataLoader", e.getKey(), e.getValue());
          if (round > 0) {
            torch.get(e.getKey()).add(e.getValue());
          }
        }
      }
      return new ImagesBenchResult(config, data.bytes(), writeSeconds, stoker, torch);
    } finally {
      spark.stop();
      SourceBench.delete(dir);
    }
  }

  /**
   * Samples/s of one epoch of {@code format("stoker")} with the transforms on every rank, timed on
   * the driver from {@code load} to the end of the job.
   */
  static double stokerEpoch(
      SparkSession spark, Path parquet, Config config, int workers, int epoch) {
    long started = System.nanoTime();
    Dataset<Row> df =
        spark
            .read()
            .format("stoker")
            .option("batchSize", config.batchSize())
            .option("worldSize", config.ranks())
            .option("shuffle", true)
            .option("seed", 1)
            .option("epoch", epoch)
            .option("dropLast", true)
            .option("numWorkers", workers)
            .option("transforms", SPEC)
            .load(parquet.toString());
    BatchCount count = StokerRead.consume(df);
    double seconds = (System.nanoTime() - started) / 1e9;
    if (count.rows() != config.stokerSamples()) {
      throw new IllegalStateException(
          "format(\"stoker\") gave "
              + count
              + " (expected: "
              + config.stokerSamples()
              + " rows in full batches of "
              + config.batchSize()
              + " on "
              + config.ranks()
              + " ranks)");
    }
    return count.rows() / seconds;
  }

  private static Map<Integer, List<Double>> rates(List<Integer> workers) {
    Map<Integer, List<Double>> rates = new LinkedHashMap<>();
    for (int w : workers) {
      rates.put(w, new ArrayList<>());
    }
    return rates;
  }

  private static void tell(PrintWriter progress, String label, String way, int workers, double r) {
    progress.printf(
        Locale.ROOT, "stoker: %-9s %-18s workers %2d: %,8.1f samples/s%n", label, way, workers, r);
    progress.flush();
  }
}
