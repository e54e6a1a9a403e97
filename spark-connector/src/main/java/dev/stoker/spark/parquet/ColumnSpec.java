package dev.stoker.spark.parquet;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.io.Serializable;
import java.util.Arrays;

/**
 * A column a rank loads, as executors need it: its kind, the dtype and shape of its batch column,
 * and where the length came from (for the message when a row has another).
 *
 * @param lengthSource e.g. {@code "the footers"} or {@code "shape.image"}
 */
public record ColumnSpec(String name, Kind kind, DType dtype, int[] shape, String lengthSource)
    implements Serializable {

  /** Values per row. */
  public int elements() {
    int n = 1;
    for (int dim : shape) {
      n *= dim;
    }
    return n;
  }

  public int rowBytes() {
    return elements() * dtype.byteSize();
  }

  Field field() {
    return Field.of(name, dtype, shape);
  }

  String shapeText() {
    return Arrays.toString(shape).replace(" ", "");
  }
}
