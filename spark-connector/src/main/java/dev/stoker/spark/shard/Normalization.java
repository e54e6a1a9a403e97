package dev.stoker.spark.shard;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;

/**
 * A per-channel normalization that a rank's loader applies to one tensor column as it writes
 * samples, so that the shard keeps the raw values (uint8 stays one byte a value on disk) and the
 * batch holds float32 ready for the model. Channels are the first dimension of the shape. The
 * arithmetic is torchvision's {@code ToTensor} then {@code Normalize}, on float32 values: {@code (x
 * / 255f - mean[c]) / std[c]} for uint8, {@code (x - mean[c]) / std[c]} for float32; float64 values
 * are normalized in double and rounded once.
 */
public final class Normalization implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String column;
  private final double[] mean;
  private final double[] std;

  private Normalization(String column, double[] mean, double[] std) {
    this.column = column;
    this.mean = mean;
    this.std = std;
  }

  /**
   * Checks the values: one mean and one std per channel, or one of either for every channel; every
   * mean finite, every std finite and &gt; 0. The column is checked by {@link #check}.
   *
   * @throws IllegalArgumentException naming the column and the bad values
   */
  public static Normalization of(String column, double[] mean, double[] std) {
    if (column == null || column.isBlank()) {
      throw new IllegalArgumentException(
          "normalize: column '" + column + "' (expected: the " + "name of a tensor column)");
    }
    String where = "normalize '" + column + "': ";
    if (mean == null || mean.length == 0) {
      throw new IllegalArgumentException(
          where + "mean " + text(mean) + " (expected: one value " + "per channel, or one for all)");
    }
    if (std == null || std.length == 0) {
      throw new IllegalArgumentException(
          where + "std " + text(std) + " (expected: one value " + "per channel, or one for all)");
    }
    for (double value : mean) {
      if (!Double.isFinite(value)) {
        throw new IllegalArgumentException(
            where + "mean " + text(mean) + " (expected: finite values)");
      }
    }
    for (double value : std) {
      if (!(Double.isFinite(value) && value > 0)) {
        throw new IllegalArgumentException(
            where
                + "std "
                + text(std)
                + " (expected: finite "
                + "values > 0; a channel of one value everywhere has std 0: leave it out of "
                + "normalize, or give it std 1)");
      }
    }
    return new Normalization(column, mean.clone(), std.clone());
  }

  public String column() {
    return column;
  }

  /**
   * Checks that {@code field}, the column as declared, can be normalized with these values: a
   * uint8, float32 or float64 tensor of C channels (its first dimension), with C or 1 means and C
   * or 1 stds.
   *
   * @throws IllegalArgumentException naming the column, what it is and what would do
   */
  public void check(Field field) {
    String where = "normalize '" + column + "': ";
    DType dtype = field.dtype();
    int[] shape = field.shape();
    if (shape.length == 0) {
      throw new IllegalArgumentException(
          where
              + "a scalar column of "
              + dtype.label()
              + " (expected: a tensor column whose first dimension is its channels)");
    }
    if (dtype != DType.UINT8 && dtype != DType.FLOAT32 && dtype != DType.FLOAT64) {
      throw new IllegalArgumentException(
          where
              + dtype.label()
              + field.shapeText()
              + " (expected: a uint8, float32 or float64 tensor)");
    }
    checkLength("mean", mean, shape[0], field);
    checkLength("std", std, shape[0], field);
  }

  private void checkLength(String name, double[] values, int channels, Field field) {
    if (values.length != 1 && values.length != channels) {
      throw new IllegalArgumentException(
          "normalize '"
              + column
              + "': "
              + name
              + " of "
              + values.length
              + " values "
              + text(values)
              + " for "
              + channels
              + " channels (shape "
              + field.shapeText()
              + ") (expected: "
              + channels
              + " values, one per channel of the "
              + "first dimension, or 1 for every channel)");
    }
  }

  /** The column as the loader delivers it: float32, same shape. */
  public Field output(Field raw) {
    return Field.of(raw.name(), DType.FLOAT32, raw.shape());
  }

  /** The mean of channel {@code c}. */
  double mean(int c) {
    return mean[mean.length == 1 ? 0 : c];
  }

  /** The std of channel {@code c}. */
  double std(int c) {
    return std[std.length == 1 ? 0 : c];
  }

  private static String text(double[] values) {
    return values == null ? "null" : Arrays.toString(values);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Normalization other
        && column.equals(other.column)
        && Arrays.equals(mean, other.mean)
        && Arrays.equals(std, other.std);
  }

  @Override
  public int hashCode() {
    return Objects.hash(column, Arrays.hashCode(mean), Arrays.hashCode(std));
  }

  @Override
  public String toString() {
    return "normalize '" + column + "' mean " + text(mean) + " std " + text(std);
  }
}
