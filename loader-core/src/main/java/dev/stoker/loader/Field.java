package dev.stoker.loader;

import java.util.Arrays;
import java.util.Objects;

/**
 * A named column of a batch: every sample holds one fixed-shape array of {@link #dtype()} values (a
 * scalar has the empty shape). A {@linkplain #variable variable-length} field (encoded image bytes,
 * token ids) may appear in a dataset's schema only: a {@link SampleTransform} turns it into fixed
 * shapes before it reaches a batch.
 */
public final class Field {
  private final String name;
  private final DType dtype;
  private final int[] shape;
  private final int elements;
  private final boolean variable;

  private Field(String name, DType dtype, int[] shape, boolean variable) {
    this.name = name;
    this.dtype = dtype;
    this.shape = shape;
    this.variable = variable;
    this.elements = variable ? 0 : elementCount(name, shape);
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
    return new Field(name, dtype, shape.clone(), false);
  }

  /**
   * A field whose samples hold any number of {@code dtype} values, e.g. {@code
   * Field.variable("jpeg", DType.UINT8)} for encoded images. It has no shape and takes no room in a
   * batch: a dataset with one needs a {@link SampleTransform} that gives it a fixed shape.
   *
   * @throws IllegalArgumentException if the name is blank
   * @throws NullPointerException if the dtype is null, naming the field
   */
  public static Field variable(String name, DType dtype) {
    Field checked = of(name, dtype);
    return new Field(checked.name, checked.dtype, new int[0], true);
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

  /** Whether the field's samples hold any number of values ({@link #variable}). */
  public boolean isVariable() {
    return variable;
  }

  /** Values per sample: the product of the shape; 0 for a variable-length field. */
  public int elements() {
    return elements;
  }

  /** Bytes per sample: elements times the dtype's size. */
  public long bytesPerSample() {
    return (long) elements * dtype.byteSize();
  }

  /** The shape as text, e.g. {@code [3,64,64]}; {@code [*]} for a variable-length field. */
  public String shapeText() {
    return variable ? "[*]" : text(shape);
  }

  private static String text(int[] shape) {
    return Arrays.toString(shape).replace(" ", "");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Field other
        && name.equals(other.name)
        && dtype == other.dtype
        && variable == other.variable
        && Arrays.equals(shape, other.shape);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, dtype, variable, Arrays.hashCode(shape));
  }

  @Override
  public String toString() {
    return name + ": " + dtype.label() + shapeText();
  }
}
