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
 * it cannot read (selecting it is an error).
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
    /** A list of numbers, the same length in every row. */
    LIST,
    /** Bytes, the same length in every row: uint8 values. */
    BINARY,
    /**
     * Bytes of any length per row (a {@code binary} column read under a transform): a
     * variable-length uint8 field of a {@link ColumnSpec}, never a file's column kind.
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
    if (type instanceof ArrayType array && scalar(array.elementType()) != null) {
      return new SourceColumn(
          field.name(),
          Kind.LIST,
          scalar(array.elementType()),
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
