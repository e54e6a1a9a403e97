package dev.stoker.spark.parquet;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.loader.transform.Transforms;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * What a read with a {@code transforms} option shows Spark: its input is every column the source
 * can read, its columns the transform's output, each as a fixed tensor column of the files would
 * show (a number as itself, a tensor of numbers as an array of them, a uint8 tensor as binary).
 */
public final class TransformedSchema {
  private TransformedSchema() {}

  /** Every column of the files that the source reads: a transform's input. */
  static List<SourceColumn> inputColumns(SourceSchema schema) {
    List<SourceColumn> columns = new ArrayList<>();
    for (String name : schema.sparkSchema().fieldNames()) {
      SourceColumn column = schema.column(name);
      if (column.kind() != Kind.UNSUPPORTED) {
        columns.add(column);
      }
    }
    return columns;
  }

  /**
   * The DataFrame schema of a read of {@code dataset} through its {@code transforms} spec: the
   * transform's output.
   *
   * @throws IllegalArgumentException if the transform refuses its input or writes a field Spark
   *     cannot be shown, naming the option
   */
  public static StructType of(SourceDataset dataset) {
    String spec = dataset.options().transforms();
    List<ColumnSpec> columns = TensorShapes.resolve(inputColumns(dataset.schema()), dataset, true);
    return sparkSchema(spec, columns);
  }

  /** The Spark schema of what transform {@code spec} writes from {@code columns}. */
  static StructType sparkSchema(String spec, List<ColumnSpec> columns) {
    List<Field> fields = new ArrayList<>();
    for (ColumnSpec column : columns) {
      fields.add(column.field());
    }
    Schema output;
    try {
      output = Transforms.parse(spec).outputSchema(Schema.of(fields));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          SourceOptions.TRANSFORMS + "='" + spec + "': " + e.getMessage(), e);
    }
    return sparkSchema(output, SourceOptions.TRANSFORMS + "='" + spec + "'");
  }

  /** The Spark schema of {@code output}, the fields that {@code writer} (for messages) writes. */
  static StructType sparkSchema(Schema output, String writer) {
    List<StructField> out = new ArrayList<>();
    for (Field field : output.fields()) {
      out.add(new StructField(field.name(), sparkType(writer, field), false, Metadata.empty()));
    }
    return new StructType(out.toArray(StructField[]::new));
  }

  /**
   * Checks that {@code required} names only columns of {@code output}, what {@code writer} writes.
   */
  static void checkRequired(StructType required, StructType output, String writer) {
    for (String name : required.fieldNames()) {
      if (!Arrays.asList(output.fieldNames()).contains(name)) {
        throw new IllegalArgumentException(
            "column '"
                + name
                + "' is not among what "
                + writer
                + " writes (expected one of: "
                + String.join(", ", output.fieldNames())
                + ")");
      }
    }
  }

  private static DataType sparkType(String writer, Field field) {
    boolean scalar = field.shape().length == 0;
    if (field.dtype() == DType.UINT8 && !scalar) {
      return DataTypes.BinaryType;
    }
    DataType value =
        switch (field.dtype()) {
          case FLOAT32 -> DataTypes.FloatType;
          case FLOAT64 -> DataTypes.DoubleType;
          case INT32 -> DataTypes.IntegerType;
          case INT64 -> DataTypes.LongType;
          case UINT8 -> null;
        };
    if (value == null || field.isVariable()) {
      throw new IllegalArgumentException(
          String.format(
              "%s writes field '%s' %s%s, which format(\"stoker\") cannot show Spark "
                  + "(expected: float32, float64, int32 or int64 values of any shape, or a uint8 "
                  + "tensor)",
              writer, field.name(), field.dtype().label(), field.shapeText()));
    }
    return scalar ? value : DataTypes.createArrayType(value, false);
  }
}
