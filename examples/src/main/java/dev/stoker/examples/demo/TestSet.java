package dev.stoker.examples.demo;

import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** The 10,000 test images, normalized, held on the driver to measure accuracy after an epoch. */
final class TestSet {
  private static final int CHUNK = 500;

  private final float[] x;
  private final int[] y;

  private TestSet(float[] x, int[] y) {
    this.x = x;
    this.y = y;
  }

  /** Reads the Parquet table {@code test} and normalizes its pixels as the loader does. */
  static TestSet read(SparkSession spark, Path test, double mean, double std) {
    List<Row> rows =
        spark.read().parquet(test.toString()).select("pixels", "label").collectAsList();
    float[] x = new float[rows.size() * 784];
    int[] y = new int[rows.size()];
    for (int r = 0; r < rows.size(); r++) {
      byte[] pixels = (byte[]) rows.get(r).get(0);
      for (int i = 0; i < 784; i++) {
        x[r * 784 + i] = (float) ((Byte.toUnsignedInt(pixels[i]) / 255.0 - mean) / std);
      }
      y[r] = rows.get(r).getInt(1);
    }
    return new TestSet(x, y);
  }

  int size() {
    return y.length;
  }

  /** The normalized pixels, row-major [size, 784] (not a copy: do not change them). */
  float[] images() {
    return x;
  }

  /** The labels (not a copy). */
  int[] labels() {
    return y;
  }

  /** The share of test images {@code model} classifies right. */
  double accuracy(Mlp model) {
    long right = 0;
    float[] chunk = new float[CHUNK * 784];
    for (int from = 0; from < y.length; from += CHUNK) {
      int rows = Math.min(CHUNK, y.length - from);
      System.arraycopy(x, from * 784, chunk, 0, rows * 784);
      int[] predicted = model.predict(chunk, rows);
      for (int r = 0; r < rows; r++) {
        right += predicted[r] == y[from + r] ? 1 : 0;
      }
    }
    return (double) right / y.length;
  }
}
