package dev.stoker.examples.demo;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The 10,000 test images and their labels, sent once to every rank (a broadcast) so that the ranks
 * measure the test accuracy after each epoch inside the training stage, each over its share. The
 * pixels travel as bytes and are normalized where they are used, as the loader normalizes the
 * training pixels.
 */
final class TestSet implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int CHUNK = 500;

  private final byte[] pixels;
  private final int[] labels;
  private final double mean;
  private final double std;
  private transient float[] normalized;

  /**
   * @param pixels 784 bytes per image, row-major
   * @param mean what the pixels (scaled to [0, 1]) are normalized with
   */
  TestSet(byte[] pixels, int[] labels, double mean, double std) {
    if (pixels.length != labels.length * 784L) {
      throw new IllegalArgumentException(
          "pixels: "
              + pixels.length
              + " bytes for "
              + labels.length
              + " labels (expected: 784 per image)");
    }
    this.pixels = pixels;
    this.labels = labels;
    this.mean = mean;
    this.std = std;
  }

  /** Reads the Parquet table {@code test}, to be normalized with {@code mean} and {@code std}. */
  static TestSet read(SparkSession spark, Path test, double mean, double std) {
    List<Row> rows =
        spark.read().parquet(test.toString()).select("pixels", "label").collectAsList();
    byte[] pixels = new byte[rows.size() * 784];
    int[] labels = new int[rows.size()];
    for (int r = 0; r < rows.size(); r++) {
      System.arraycopy((byte[]) rows.get(r).get(0), 0, pixels, r * 784, 784);
      labels[r] = rows.get(r).getInt(1);
    }
    return new TestSet(pixels, labels, mean, std);
  }

  int size() {
    return labels.length;
  }

  /** The first image of rank {@code rank}'s share of {@code worldSize} equal ones (± 1 image). */
  int shareStart(int rank, int worldSize) {
    return (int) ((long) labels.length * rank / worldSize);
  }

  /** The normalized pixels, row-major [size, 784] (not a copy: do not change them). */
  synchronized float[] images() {
    if (normalized == null) {
      float[] x = new float[pixels.length];
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) ((Byte.toUnsignedInt(pixels[i]) / 255.0 - mean) / std);
      }
      normalized = x;
    }
    return normalized;
  }

  /** The labels (not a copy). */
  int[] labels() {
    return labels;
  }

  /** How many of the images {@code [from, to)} {@code model} classifies right. */
  long rightAnswers(Mlp model, int from, int to) {
    float[] x = images();
    long right = 0;
    float[] chunk = new float[CHUNK * 784];
    for (int start = from; start < to; start += CHUNK) {
      int rows = Math.min(CHUNK, to - start);
      System.arraycopy(x, start * 784, chunk, 0, rows * 784);
      int[] predicted = model.predict(chunk, rows);
      for (int r = 0; r < rows; r++) {
        right += predicted[r] == labels[start + r] ? 1 : 0;
      }
    }
    return right;
  }
}
