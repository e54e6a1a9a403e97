package dev.stoker.examples.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Fashion-MNIST as Parquet, written once into a cache folder and reused: {@code train/} and {@code
 * test/}, each row {@code pixels} (binary, 784 bytes, one 28x28 image) and {@code label} (int). A
 * marker file beside them records the row counts and the checksums of the files they came from; a
 * folder without a matching marker is written again.
 */
public final class ParquetCache {
  /** Columns of a row. */
  public static final StructType SCHEMA =
      new StructType()
          .add("pixels", DataTypes.BinaryType, false)
          .add("label", DataTypes.IntegerType, false);

  /** Small row groups (about 1,300 images) so that a shuffled read mixes them every epoch. */
  static final long ROW_GROUP_BYTES = 1 << 20;

  private static final String MARKER = "_stoker_complete.properties";

  /** The two tables and whether they were written by this call. */
  public record Tables(Path train, Path test, long trainRows, long testRows, boolean written) {}

  private ParquetCache() {}

  /**
   * The train and test tables under {@code folder}: reused when its marker matches {@code files}
   * (and {@code trainRows}), else written from the IDX files.
   *
   * @param trainRows the training rows to keep: all (60,000) or the first that many
   */
  public static Tables open(
      SparkSession spark, FashionMnist.Files4 files, int trainRows, Path folder, PrintStream log)
      throws IOException {
    Path train = folder.resolve("train");
    Path test = folder.resolve("test");
    Properties wanted = marker(trainRows);
    Path markerFile = folder.resolve(MARKER);
    Properties found = read(markerFile);
    if (complete(wanted, found, train, test)) {
      log.println(
          "stoker: reusing the Parquet tables in "
              + folder
              + " ("
              + found.getProperty("train.rows")
              + " train and "
              + found.getProperty("test.rows")
              + " test rows, made from files with the published checksums)");
      return new Tables(
          train,
          test,
          Long.parseLong(found.getProperty("train.rows")),
          Long.parseLong(found.getProperty("test.rows")),
          false);
    }
    long begin = System.nanoTime();
    Files.createDirectories(folder);
    Files.deleteIfExists(markerFile);
    long trainCount = write(spark, files.trainImages(), files.trainLabels(), trainRows, train);
    long testCount = write(spark, files.testImages(), files.testLabels(), 0, test);
    wanted.setProperty("train.rows", Long.toString(trainCount));
    wanted.setProperty("test.rows", Long.toString(testCount));
    try (var out = Files.newBufferedWriter(markerFile)) {
      wanted.store(out, "Fashion-MNIST as Parquet, written by the Stoker demo");
    }
    log.printf(
        "stoker: wrote %d train and %d test rows as Parquet into %s (%.1f s)%n",
        trainCount, testCount, folder, (System.nanoTime() - begin) / 1e9);
    return new Tables(train, test, trainCount, testCount, true);
  }

  private static long write(SparkSession spark, Path images, Path labels, int limit, Path to)
      throws IOException {
    IdxFile pixels = IdxFile.read(images);
    IdxFile classes = IdxFile.read(labels);
    if (pixels.count() != classes.count() || pixels.itemSize() != 784) {
      throw new IOException(
          String.format(
              "%s and %s: %d images of %d bytes and %d labels "
                  + "(expected: as many labels as 28x28 images; give the published files)",
              images, labels, pixels.count(), pixels.itemSize(), classes.count()));
    }
    int rows = limit > 0 ? Math.min(limit, pixels.count()) : pixels.count();
    List<Row> list = new ArrayList<>(rows);
    for (int i = 0; i < rows; i++) {
      byte[] image = Arrays.copyOfRange(pixels.data(), i * 784, (i + 1) * 784);
      list.add(RowFactory.create(image, Byte.toUnsignedInt(classes.data()[i])));
    }
    // Small tasks carry the rows (not one task with all of them), one shuffle gathers them.
    int slices = (int) Math.max(1, (long) rows * 784 / (512 << 10));
    spark
        .createDataFrame(
            JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(list, slices),
            SCHEMA)
        .repartition(1)
        .write()
        .mode(SaveMode.Overwrite)
        .option("parquet.block.size", ROW_GROUP_BYTES)
        .parquet(to.toString());
    return rows;
  }

  private static Properties marker(int trainRows) {
    Properties marker = new Properties();
    marker.setProperty("train.limit", Integer.toString(Math.max(trainRows, 0)));
    marker.setProperty("source.sha256", String.join(",", FashionMnist.contentChecksums()));
    return marker;
  }

  /** The marker matches and both tables were written to the end (Spark's _SUCCESS). */
  private static boolean complete(Properties wanted, Properties found, Path train, Path test) {
    for (String key : wanted.stringPropertyNames()) {
      if (!wanted.getProperty(key).equals(found.getProperty(key))) {
        return false;
      }
    }
    return found.getProperty("train.rows", "").matches("\\d+")
        && found.getProperty("test.rows", "").matches("\\d+")
        && Files.isRegularFile(train.resolve("_SUCCESS"))
        && Files.isRegularFile(test.resolve("_SUCCESS"));
  }

  private static Properties read(Path file) throws IOException {
    Properties found = new Properties();
    if (Files.isRegularFile(file)) {
      try (var in = Files.newBufferedReader(file)) {
        found.load(in);
      }
    }
    return found;
  }
}
