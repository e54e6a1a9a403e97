package dev.stoker.spark.parquet;

import dev.stoker.loader.DType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;

/**
 * One top-level column of the Parquet files and what the source makes of it: a number (one value
 * per row), a list of numbers or a binary value (a tensor of a fixed length per row), or a column
 * it cannot read (selecting it is an error). A list of smallint is a list of int32 values (as
 * Parquet stores them) that only a read with a transform takes, as a variable-length field.
 *
 * @param dtype the values' type in a batch; null when unsupported
 * @param fixedLength bytes of a {@code fixed_len_byte_array}, else -1
 * @param parquet the Parquet field, for messages
 */
public record SourceColumn(
    String name, Kind kind, DType dtype, DataType sparkType, int fixedLength, String parquet) {

  /** How a column's rows become batch rows. */
  public enum Kind {
    /** One number per row. */
    SCALAR,
    /**
     * A list of numbers, the same length in every row (or, a list of integers read under a
     * transform, of any length: a {@link #VARIABLE} column spec).
     */
    LIST,
    /** Bytes, the same length in every row: uint8 values. */
    BINARY,
    /**
     * Bytes of any length per row (a {@code binary} column read under a transform), or integers of
     * any number per row (a list of int, bigint or smallint read under a transform): a
     * variable-length uint8, int32 or int64 field of a {@link ColumnSpec}, never a file's column
     * kind.
     */
    VARIABLE,
    /** Not readable by this source. */
    UNSUPPORTED
  }

  /** The column {@code field} of a file whose Parquet schema is {@code schema}. */
  static SourceColumn of(StructField field, MessageType schema) {
    Type parquet = schema.getType(field.name());
    String text = parquet.toString().strip().replaceAll("\\s+", " ");
    DataType type = field.dataType();
    DType scalar = scalar(type);
    if (scalar != null) {
      return new SourceColumn(field.name(), Kind.SCALAR, scalar, type, -1, text);
    }
    if (type instanceof ArrayType array
        && (scalar(array.elementType()) != null || isShort(array.elementType()))) {
      DType element = isShort(array.elementType()) ? DType.INT32 : scalar(array.elementType());
      return new SourceColumn(
          field.name(),
          Kind.LIST,
          element,
          DataTypes.createArrayType(array.elementType(), false),
          -1,
          text);
    }
    if (type.equals(DataTypes.BinaryType)) {
      int fixed =
          parquet.isPrimitive()
                  && parquet.asPrimitiveType().getPrimitiveTypeName()
                      == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
              ? parquet.asPrimitiveType().getTypeLength()
              : -1;
      return new SourceColumn(field.name(), Kind.BINARY, DType.UINT8, type, fixed, text);
    }
    return new SourceColumn(field.name(), Kind.UNSUPPORTED, null, type, -1, text);
  }

  /**
   * A {@code string} column as variable-length bytes, its UTF-8 as stored (what a tokenizer reads);
   * null if it is no string column.
   */
  SourceColumn asText() {
    return sparkType.equals(DataTypes.StringType)
        ? new SourceColumn(name, Kind.BINARY, DType.UINT8, sparkType, -1, parquet)
        : null;
  }

  private static boolean isShort(DataType type) {
    return type.equals(DataTypes.ShortType);
  }

  /**
   * Whether the column is a list of smallint, whose values are read widened to int32 (as Parquet
   * stores them): only as a variable-length field of a read with a transform.
   */
  boolean widened() {
    return kind == Kind.LIST
        && sparkType instanceof ArrayType array
        && isShort(array.elementType());
  }

  /** Whether the column is a list of integers (int, bigint or smallint). */
  boolean integerList() {
    return kind == Kind.LIST && (dtype == DType.INT32 || dtype == DType.INT64);
  }

  private static DType scalar(DataType type) {
    if (type.equals(DataTypes.FloatType)) {
      return DType.FLOAT32;
    } else if (type.equals(DataTypes.DoubleType)) {
      return DType.FLOAT64;
    } else if (type.equals(DataTypes.IntegerType)) {
      return DType.INT32;
    } else if (type.equals(DataTypes.LongType)) {
      return DType.INT64;
    }
    return null;
  }

  /** The column in the DataFrame's schema: never null, nor its list elements. */
  public StructField sparkField() {
    return new StructField(
        name, sparkType, kind == Kind.UNSUPPORTED, org.apache.spark.sql.types.Metadata.empty());
  }

  /**
   * Its type for messages, e.g. {@code array<float> (Parquet: optional group image (LIST) ...)}.
   */
  String describe() {
    return sparkType.catalogString() + " (Parquet: " + parquet + ")";
  }
}
