package dev.stoker.loader;

import java.util.Arrays;
import java.util.Objects;

/**
 * A named column of a batch: every sample holds one fixed-shape array of {@link #dtype()} values (a
 * scalar has the empty shape).
 */
public final class Field {
  private final String name;
  private final DType dtype;
  private final int[] shape;
  private final int elements;

  private Field(String name, DType dtype, int[] shape) {
    this.name = name;
    this.dtype = dtype;
    this.shape = shape;
    this.elements = elementCount(name, shape);
  }

  /**
   * A field of the given shape, e.g. {@code Field.of("image", DType.FLOAT32, 3, 64, 64)}.
   *
   * @throws IllegalArgumentException if the name is blank or a dimension is not positive
   * @throws NullPointerException if the dtype or the shape is null, naming the field
   */
  public static Field of(String name, DType dtype, int... shape) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("field name: '" + name + "' (expected: a non-blank name)");
    }
    if (dtype == null) {
      throw new NullPointerException(
          "field '"
              + name
              + "' dtype: null (expected one of: "
              + String.join(", ", Arrays.stream(DType.values()).map(DType::label).toList())
              + ")");
    }
    if (shape == null) {
      throw new NullPointerException(
          "field '"
              + name
              + "' shape: null (expected: the "
              + "dimensions of one sample, none for a scalar)");
    }
    return new Field(name, dtype, shape.clone());
  }

  /** A scalar field, such as a label. */
  public static Field scalar(String name, DType dtype) {
    return of(name, dtype);
  }

  private static int elementCount(String name, int[] shape) {
    long count = 1;
    for (int dim : shape) {
      if (dim <= 0) {
        throw new IllegalArgumentException(
            "field '" + name + "' shape: " + text(shape) + " (expected: every dimension > 0)");
      }
      count *= dim;
      if (count > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "field '"
                + name
                + "' shape: "
                + text(shape)
                + " (expected: at most "
                + Integer.MAX_VALUE
                + " elements per sample)");
      }
    }
    return (int) count;
  }

  public String name() {
    return name;
  }

  public DType dtype() {
    return dtype;
  }

  /** The per-sample shape (a copy). */
  public int[] shape() {
    return shape.clone();
  }

  /** Values per sample: the product of the shape. */
  public int elements() {
    return elements;
  }

  /** Bytes per sample: elements times the dtype's size. */
  public long bytesPerSample() {
    return (long) elements * dtype.byteSize();
  }

  /** The shape as text, e.g. {@code [3,64,64]}. */
  public String shapeText() {
    return text(shape);
  }

  private static String text(int[] shape) {
    return Arrays.toString(shape).replace(" ", "");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Field other
        && name.equals(other.name)
        && dtype == other.dtype
        && Arrays.equals(shape, other.shape);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, dtype, Arrays.hashCode(shape));
  }

  @Override
  public String toString() {
    return name + ": " + dtype.label() + shapeText();
  }
}
