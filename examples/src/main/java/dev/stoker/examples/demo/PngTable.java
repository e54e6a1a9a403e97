package dev.stoker.examples.demo;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * The training table of {@code --images}: each 28x28 grey image of the raw table encoded as PNG
 * with ImageIO, the way such datasets are shipped, in a column of the same name ({@code pixels},
 * binary of varying length) beside the same {@code label}. Written once beside the raw tables and
 * reused while Spark's {@code _SUCCESS} is there and the raw tables were not written again.
 */
final class PngTable {
  private static final int SIDE = 28;

  private PngTable() {}

  /** The PNG table made from {@code raw}'s training table, under {@code folder}. */
  static Path open(SparkSession spark, ParquetCache.Tables raw, Path folder, PrintStream log) {
    Path table = folder.resolve("train-png");
    if (!raw.written() && Files.isRegularFile(table.resolve("_SUCCESS"))) {
      log.println("stoker: reusing the PNG table in " + table);
      return table;
    }
    long begin = System.nanoTime();
    // Encoded in the tasks that read the raw table: no rows through the driver.
    spark
        .read()
        .parquet(raw.train().toString())
        .select("pixels", "label")
        .mapPartitions(
            (MapPartitionsFunction<Row, Row>)
                rows -> {
                  List<Row> encoded = new ArrayList<>();
                  while (rows.hasNext()) {
                    Row row = rows.next();
                    encoded.add(RowFactory.create(encode(row.getAs(0)), row.<Integer>getAs(1)));
                  }
                  return encoded.iterator();
                },
            Encoders.row(ParquetCache.SCHEMA))
        .coalesce(1)
        .write()
        .mode(SaveMode.Overwrite)
        .option("parquet.block.size", ParquetCache.ROW_GROUP_BYTES / 4)
        .parquet(table.toString());
    long count = spark.read().parquet(table.toString()).count();
    long bytes = folderBytes(table);
    log.printf(
        Locale.ROOT,
        "stoker: wrote %d training images as PNG (%.0f bytes of Parquet each) into %s (%.1f s)%n",
        count,
        (double) bytes / Math.max(1, count),
        table,
        (System.nanoTime() - begin) / 1e9);
    return table;
  }

  /** 784 grey bytes, row by row, as a PNG of 28x28 8-bit grey. */
  private static long folderBytes(Path folder) {
    try (var files = Files.list(folder)) {
      long bytes = 0;
      for (Path file : files.toList()) {
        bytes += Files.size(file);
      }
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException("listing " + folder + ": " + e, e);
    }
  }

  static byte[] encode(byte[] pixels) {
    if (pixels.length != SIDE * SIDE) {
      throw new IllegalArgumentException(
          "pixels: " + pixels.length + " bytes (expected: " + SIDE * SIDE + ", one 28x28 image)");
    }
    BufferedImage image = new BufferedImage(SIDE, SIDE, BufferedImage.TYPE_BYTE_GRAY);
    image.getRaster().setDataElements(0, 0, SIDE, SIDE, pixels);
    ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    try {
      ImageIO.write(image, "png", out);
    } catch (IOException e) {
      throw new UncheckedIOException("encoding a 28x28 PNG: " + e, e);
    }
    return out.toByteArray();
  }
}
