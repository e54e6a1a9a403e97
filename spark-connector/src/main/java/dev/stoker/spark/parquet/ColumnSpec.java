package dev.stoker.spark.parquet;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.io.Serializable;
import java.util.Arrays;

/**
 * A column a rank loads, as executors need it: its kind, the dtype and shape of its batch column,
 * and where the length came from (for the message when a row has another). A {@linkplain
 * Kind#VARIABLE variable-length} column has no shape: its rows are bytes of any length, about
 * {@code meanBytes} each as the footers tell (what a shuffle window is sized by).
 *
 * @param lengthSource e.g. {@code "the footers"} or {@code "shape.image"}
 * @param meanBytes a variable-length column's mean bytes per row, from the footers; else 0
 */
public record ColumnSpec(
    String name, Kind kind, DType dtype, int[] shape, String lengthSource, long meanBytes)
    implements Serializable {

  /** A fixed-length column. */
  public ColumnSpec(String name, Kind kind, DType dtype, int[] shape, String lengthSource) {
    this(name, kind, dtype, shape, lengthSource, 0);
  }

  /** A variable-length column of bytes, about {@code meanBytes} a row. */
  static ColumnSpec variable(String name, long meanBytes) {
    return variable(name, DType.UINT8, meanBytes);
  }

  /**
   * A variable-length column of {@code dtype} values, about {@code meanBytes} a row: uint8 from a
   * binary column, int32 or int64 from a list of integers.
   */
  static ColumnSpec variable(String name, DType dtype, long meanBytes) {
    return new ColumnSpec(
        name, Kind.VARIABLE, dtype, new int[0], "variable length", Math.max(0, meanBytes));
  }

  /**
   * Whether the column's rows are lists of integers of any length (a variable-length int32 or int64
   * column), stored as their values' bytes back to back.
   */
  public boolean variableList() {
    return variable() && dtype != DType.UINT8;
  }

  /** Whether the column's rows are bytes of any length ({@link Kind#VARIABLE}). */
  public boolean variable() {
    return kind == Kind.VARIABLE;
  }

  /** Values per row; 0 for a variable-length column. */
  public int elements() {
    if (variable()) {
      return 0;
    }
    int n = 1;
    for (int dim : shape) {
      n *= dim;
    }
    return n;
  }

  /** Bytes of a row in a batch or a window's fixed area; 0 for a variable-length column. */
  public int rowBytes() {
    return elements() * dtype.byteSize();
  }

  /**
   * Bytes a row takes in a shuffle window, as planned: its fixed bytes, or a variable-length row's
   * mean bytes and its offset.
   */
  long windowRowBytes() {
    return variable() ? meanBytes + Integer.BYTES : rowBytes();
  }

  Field field() {
    return variable() ? Field.variable(name, dtype) : Field.of(name, dtype, shape);
  }

  String shapeText() {
    return Arrays.toString(shape).replace(" ", "");
  }
}
