package dev.stoker.spark.shard;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * The columns of a shard, in schema order, and the bytes one row takes in each: the serializable
 * form of a {@link Schema} that travels to executors with the blocks built from it.
 */
public final class ShardLayout implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A row of one column must fit in a mapped segment. */
  static final int MAX_ROW_BYTES = 1 << 30;

  private final String[] names;
  private final DType[] dtypes;
  private final int[][] shapes;
  private final int[] rowBytes;
  private transient Schema schema;

  public ShardLayout(Schema schema) {
    int n = schema.size();
    this.names = new String[n];
    this.dtypes = new DType[n];
    this.shapes = new int[n][];
    this.rowBytes = new int[n];
    for (int f = 0; f < n; f++) {
      Field field = schema.field(f);
      if (field.bytesPerSample() > MAX_ROW_BYTES) {
        throw new IllegalArgumentException(
            String.format(
                "column '%s': %d bytes per row " + "(expected: at most %d)",
                field.name(), field.bytesPerSample(), MAX_ROW_BYTES));
      }
      names[f] = field.name();
      dtypes[f] = field.dtype();
      shapes[f] = field.shape();
      rowBytes[f] = (int) field.bytesPerSample();
    }
    this.schema = schema;
  }

  /** The schema of the rank's dataset. */
  public Schema schema() {
    if (schema == null) {
      List<Field> fields = new ArrayList<>(names.length);
      for (int f = 0; f < names.length; f++) {
        fields.add(Field.of(names[f], dtypes[f], shapes[f]));
      }
      schema = Schema.of(fields);
    }
    return schema;
  }

  public int columns() {
    return names.length;
  }

  public String name(int column) {
    return names[column];
  }

  /** Bytes one row takes in {@code column}. */
  public int rowBytes(int column) {
    return rowBytes[column];
  }

  /** Bytes one row takes over all columns. */
  public long rowBytes() {
    long total = 0;
    for (int bytes : rowBytes) {
      total += bytes;
    }
    return total;
  }

  /** Rows of a block of about {@code targetBytes}: at least one. */
  public int rowsPerBlock(long targetBytes) {
    long rows = targetBytes / Math.max(1, rowBytes());
    return (int) Math.max(1, Math.min(rows, Integer.MAX_VALUE / 2));
  }
}
