package dev.stoker.spark.parquet;

import dev.stoker.loader.DType;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The values of a read's partition columns in one data file ({@link ColumnNames#partitions}): the
 * same in every row of the file, written by the run's reader into each row it reads, where the
 * file's own columns are decoded.
 */
final class PartitionValues {
  private static final PartitionValues NONE = new PartitionValues(null, new Number[0]);

  private final List<ColumnSpec> columns;

  /** Per column of the read, its value in this file; null for a column the file holds. */
  private final Number[] values;

  private PartitionValues(List<ColumnSpec> columns, Number[] values) {
    this.columns = columns;
    this.values = values;
  }

  /**
   * The partition values of file {@code path} for the columns of {@code config}.
   *
   * @throws IllegalStateException if one is null (planning refuses a selected column with nulls)
   */
  static PartitionValues of(ReadConfig config, String path) {
    ColumnNames names = config.names();
    if (names.partitions().isEmpty()) {
      return NONE;
    }
    List<ColumnSpec> columns = config.columns();
    Number[] values = new Number[columns.size()];
    for (int c = 0; c < values.length; c++) {
      int partition = names.partition(columns.get(c).name());
      if (partition < 0) {
        continue;
      }
      values[c] = names.value(path, partition);
      if (values[c] == null) {
        throw new IllegalStateException(
            "partition column '"
                + columns.get(c).name()
                + "' is null in data file '"
                + path
                + "' (expected: no nulls in a column Stoker loads; leave the column out of the "
                + "read, or rewrite the rows with a value)");
      }
    }
    return new PartitionValues(columns, values);
  }

  /** Whether the read's column {@code c} is a partition's, whose value the file does not hold. */
  boolean constant(int c) {
    return c < values.length && values[c] != null;
  }

  /**
   * Writes the value of column {@code c} into {@code rows} rows of {@code window} from {@code
   * atRow}.
   */
  void fill(int c, ShuffleWindow window, int atRow, int rows) {
    ColumnSpec column = columns.get(c);
    int elements = rows * column.elements();
    ByteBuffer buffer = window.buffer();
    int at = window.offset(c, atRow, rows);
    Number value = values[c];
    DType dtype = column.dtype();
    switch (dtype) {
      case INT32 -> {
        int v = value.intValue();
        for (int i = 0; i < elements; i++) {
          buffer.putInt(at + 4 * i, v);
        }
      }
      case INT64 -> {
        long v = value.longValue();
        for (int i = 0; i < elements; i++) {
          buffer.putLong(at + 8 * i, v);
        }
      }
      case FLOAT32 -> {
        float v = value.floatValue();
        for (int i = 0; i < elements; i++) {
          buffer.putFloat(at + 4 * i, v);
        }
      }
      case FLOAT64 -> {
        double v = value.doubleValue();
        for (int i = 0; i < elements; i++) {
          buffer.putDouble(at + 8 * i, v);
        }
      }
      default ->
          throw new IllegalStateException(
              "partition column '" + column.name() + "' as " + dtype + " (expected: a number)");
    }
  }
}
