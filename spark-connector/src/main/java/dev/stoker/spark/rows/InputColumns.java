package dev.stoker.spark.rows;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.spark.shard.ShardLayout;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Checks the declared columns against a DataFrame's schema on the driver, before any job runs, and
 * builds the {@link RowCopier} for them. A tensor (a field with a shape) is read from {@code
 * array<float|double|int|bigint>} of its dtype, or from {@code binary} for uint8; a scalar (no
 * shape) from a numeric column its dtype can hold. Every refusal names the column, its type, what
 * was expected and how to get there.
 */
public final class InputColumns {
  private InputColumns() {}

  /**
   * @throws IllegalArgumentException for a column that is missing or of a type its field cannot be
   *     read from
   */
  public static RowCopier bind(ShardLayout layout, StructType input) {
    Schema schema = layout.schema();
    List<ColumnCopier> copiers = new ArrayList<>(schema.size());
    for (Field field : schema.fields()) {
      copiers.add(copier(field, input));
    }
    return new RowCopier(layout, copiers);
  }

  /**
   * Checks one declared field against the input, as {@link #bind} does.
   *
   * @throws IllegalArgumentException as {@link #bind} does
   */
  public static void check(Field field, StructType input) {
    copier(field, input);
  }

  private static ColumnCopier copier(Field field, StructType input) {
    int ordinal = ordinal(input, field.name());
    StructField column = input.fields()[ordinal];
    return field.shape().length == 0
        ? scalar(field, ordinal, column.dataType())
        : tensor(field, ordinal, column.dataType());
  }

  /** The column named {@code name}: exactly, else ignoring case when only one matches. */
  private static int ordinal(StructType input, String name) {
    StructField[] fields = input.fields();
    int match = -1;
    for (int i = 0; i < fields.length; i++) {
      if (fields[i].name().equals(name)) {
        return i;
      }
      if (fields[i].name().equalsIgnoreCase(name)) {
        match = match == -1 ? i : -2;
      }
    }
    if (match >= 0) {
      return match;
    }
    throw new IllegalArgumentException(
        "column '"
            + name
            + "': not in the DataFrame (expected "
            + "one of: "
            + String.join(", ", input.fieldNames())
            + ")");
  }

  private static ColumnCopier tensor(Field field, int ordinal, DataType type) {
    DType dtype = field.dtype();
    String shape = field.shapeText();
    if (type instanceof BinaryType && dtype == DType.UINT8) {
      return new BinaryCopier(field.name(), ordinal, field.elements(), shape);
    }
    if (type instanceof ArrayType array
        && dtype != DType.UINT8
        && array.elementType().equals(arrayElement(dtype))) {
      return new ArrayCopier(
          field.name(), ordinal, dtype, field.elements(), shape, array.containsNull());
    }
    String wanted = dtype == DType.UINT8 ? "binary" : "array<" + sqlName(dtype) + ">";
    String advice =
        dtype == DType.UINT8 || !(type instanceof ArrayType)
            ? ""
            : String.format(
                "; cast it in Spark, e.g. col(\"%s\").cast(\"%s\")", field.name(), wanted);
    throw new IllegalArgumentException(
        String.format(
            "column '%s': %s for %s%s (expected: %s%s)",
            field.name(), type.simpleString(), dtype.label(), shape, wanted, advice));
  }

  private static ColumnCopier scalar(Field field, int ordinal, DataType type) {
    DType dtype = field.dtype();
    ScalarCopier.Source source = source(type);
    boolean floating = source == ScalarCopier.Source.FLOAT || source == ScalarCopier.Source.DOUBLE;
    boolean integerDtype = dtype != DType.FLOAT32 && dtype != DType.FLOAT64;
    if (source == null || (floating && integerDtype)) {
      String kinds =
          integerDtype
              ? "an integer column (tinyint, smallint, int or bigint)"
              : "a numeric column (tinyint, smallint, int, bigint, float or double)";
      String cast = integerDtype ? (dtype == DType.INT64 ? "bigint" : "int") : sqlName(dtype);
      throw new IllegalArgumentException(
          String.format(
              "column '%s': %s for %s (expected: %s; "
                  + "cast it in Spark, e.g. col(\"%s\").cast(\"%s\"))",
              field.name(), type.simpleString(), dtype.label(), kinds, field.name(), cast));
    }
    return new ScalarCopier(field.name(), ordinal, source, dtype, type.simpleString());
  }

  private static ScalarCopier.Source source(DataType type) {
    if (type instanceof ByteType) {
      return ScalarCopier.Source.BYTE;
    }
    if (type instanceof ShortType) {
      return ScalarCopier.Source.SHORT;
    }
    if (type instanceof IntegerType) {
      return ScalarCopier.Source.INT;
    }
    if (type instanceof LongType) {
      return ScalarCopier.Source.LONG;
    }
    if (type instanceof FloatType) {
      return ScalarCopier.Source.FLOAT;
    }
    if (type instanceof DoubleType) {
      return ScalarCopier.Source.DOUBLE;
    }
    return null;
  }

  private static DataType arrayElement(DType dtype) {
    return switch (dtype) {
      case FLOAT32 -> DataTypes.FloatType;
      case FLOAT64 -> DataTypes.DoubleType;
      case INT32 -> DataTypes.IntegerType;
      case INT64 -> DataTypes.LongType;
      case UINT8 -> DataTypes.BinaryType;
    };
  }

  /** Spark SQL's name of the type holding {@code dtype}'s values. */
  private static String sqlName(DType dtype) {
    return switch (dtype) {
      case FLOAT32 -> "float";
      case FLOAT64 -> "double";
      case INT32 -> "int";
      case INT64 -> "bigint";
      case UINT8 -> "tinyint";
    };
  }
}
