package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Where a table's columns are in its data files, where the files do not store them under the
 * table's names: Delta's column mapping (each column under a physical name such as {@code
 * col-5f2c…}, with a field id), an Iceberg column renamed since some files were written (found by
 * its field id), a column dropped from the table (in files that still hold it, not read).
 *
 * <p>Also the values of a Delta table's partition columns, which its files do not hold: one value
 * per file, which the ranks write into every row they read of it.
 *
 * <p>A file that gives its columns field ids is matched by id only (a column dropped and added
 * again under the same name has a new id, and older files hold the old one); a file without ids
 * (written before the table's mapping) by the physical name, then the table's name. Without a
 * mapping every column is found by its name.
 *
 * @param fields the table's column name to where files keep it; empty: every column by its name
 * @param partitions the partition columns read, in the table's order; their types are numbers
 * @param values each data file's path to its values of {@code partitions}, in their order (null:
 *     the partition's null)
 */
public record ColumnNames(
    Map<String, FileField> fields, List<Partition> partitions, Map<String, Number[]> values)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Every column under its own name, none a partition's. */
  public static final ColumnNames BY_NAME = new ColumnNames(Map.of(), List.of(), Map.of());

  /**
   * A partition column.
   *
   * @param type its Parquet type as the files would hold it: INT32, INT64, FLOAT or DOUBLE
   */
  public record Partition(String name, PrimitiveType.PrimitiveTypeName type)
      implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /**
   * Where files keep one column.
   *
   * @param id its Parquet field id, or -1 where the table gives none
   * @param physical the name files store it under, or null where it is the table's
   */
  public record FileField(int id, String physical) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  public ColumnNames {
    fields = Map.copyOf(fields);
    partitions = List.copyOf(partitions);
    values = Map.copyOf(values);
  }

  /** Where files keep the columns, without partition columns. */
  public ColumnNames(Map<String, FileField> fields) {
    this(fields, List.of(), Map.of());
  }

  /** These names with the values of {@code partitions} in each file of {@code values}. */
  ColumnNames withPartitions(List<Partition> partitions, Map<String, Number[]> values) {
    return new ColumnNames(fields, partitions, values);
  }

  /** Whether every column is found by its own name. */
  public boolean byName() {
    return fields.isEmpty();
  }

  /** Whether nothing differs from plain files: columns by name, no partition column. */
  boolean plain() {
    return fields.isEmpty() && partitions.isEmpty();
  }

  /** The partition column {@code column}'s index in {@link #partitions}, or -1. */
  int partition(String column) {
    for (int i = 0; i < partitions.size(); i++) {
      if (partitions.get(i).name().equals(column)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The value of partition column {@code partition} (its index) in file {@code path}.
   *
   * @throws IllegalStateException if the read did not plan that file
   */
  Number value(String path, int partition) {
    Number[] file = values.get(path);
    if (file == null) {
      throw new IllegalStateException(
          "no partition values for data file '"
              + path
              + "' (expected: a file of the table's snapshot as planned; load again)");
    }
    return file[partition];
  }

  /**
   * The name under which {@code file} holds the table's column {@code column}, or null if it holds
   * it nowhere.
   */
  public String nameIn(MessageType file, String column) {
    FileField field = fields.get(column);
    if (field == null) {
      return file.containsField(column) ? column : null;
    }
    if (field.id() >= 0 && hasIds(file)) {
      for (Type type : file.getFields()) {
        if (type.getId() != null && type.getId().intValue() == field.id()) {
          return type.getName();
        }
      }
      return null;
    }
    if (field.physical() != null && file.containsField(field.physical())) {
      return field.physical();
    }
    return file.containsField(column) ? column : null;
  }

  private static boolean hasIds(MessageType file) {
    for (Type type : file.getFields()) {
      if (type.getId() != null) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code file} as the table names its columns: each column it holds renamed to the table's name,
   * those the table does not have (dropped) left out, with their figures per row group.
   */
  ParquetFile named(ParquetFile file) {
    if (plain()) {
      return file;
    }
    Map<String, String> tableNames = new LinkedHashMap<>();
    if (byName()) {
      for (Type type : file.schema().getFields()) {
        tableNames.put(type.getName(), type.getName());
      }
    }
    for (String column : fields.keySet()) {
      String inFile = nameIn(file.schema(), column);
      if (inFile != null) {
        tableNames.put(inFile, column);
      }
    }
    // a partition's values are the table's, whatever a file may hold under its name
    tableNames.values().removeIf(column -> partition(column) >= 0);
    List<Type> renamed = new ArrayList<>();
    for (Type type : file.schema().getFields()) {
      String column = tableNames.get(type.getName());
      if (column != null) {
        renamed.add(renamed(type, column));
      }
    }
    for (Partition partition : partitions) {
      renamed.add(Types.optional(partition.type()).named(partition.name()));
    }
    List<ParquetFile.RowGroup> groups = new ArrayList<>();
    for (ParquetFile.RowGroup group : file.rowGroups()) {
      Map<String, ParquetFile.ColumnStats> columns = new LinkedHashMap<>();
      group
          .columns()
          .forEach(
              (name, stats) -> {
                String column = tableNames.get(name);
                if (column != null) {
                  columns.put(column, stats);
                }
              });
      for (int p = 0; p < partitions.size(); p++) {
        boolean isNull = value(file.path(), p) == null;
        // a value of no bytes in the file, the same in every row; a null one counts as nulls
        columns.put(
            partitions.get(p).name(),
            new ParquetFile.ColumnStats(group.rows(), isNull ? group.rows() : 0, 0, true, 0));
      }
      groups.add(
          new ParquetFile.RowGroup(
              group.ordinal(),
              group.start(),
              group.bytes(),
              group.rows(),
              group.firstRow(),
              columns));
    }
    return new ParquetFile(
        file.path(),
        new MessageType(file.schema().getName(), renamed),
        List.copyOf(groups),
        file.footer(),
        file.kept());
  }

  /**
   * {@code requested} (the table's names) as {@code file} names its columns, for Spark's reader,
   * which finds columns by name.
   *
   * @throws IllegalStateException naming a column the file does not hold
   */
  StructType inFile(StructType requested, MessageType file, String path) {
    if (byName()) {
      return requested;
    }
    StructField[] fields = requested.fields().clone();
    for (int i = 0; i < fields.length; i++) {
      String name = nameIn(file, fields[i].name());
      if (name == null) {
        throw missing(fields[i].name(), path);
      }
      fields[i] =
          new StructField(name, fields[i].dataType(), fields[i].nullable(), fields[i].metadata());
    }
    return new StructType(fields);
  }

  /** The error of a data file that does not hold a column its table has. */
  static IllegalStateException missing(String column, String path) {
    return new IllegalStateException(
        "column '"
            + column
            + "' is not in data file '"
            + path
            + "' (expected: the file as its table wrote it; was it rewritten outside the table, or "
            + "the table's schema changed since it was planned? load again)");
  }

  /** {@code type} under {@code name}, its id, annotation and fields kept. */
  private static Type renamed(Type type, String name) {
    if (type.getName().equals(name)) {
      return type;
    }
    if (type.isPrimitive()) {
      PrimitiveType primitive = type.asPrimitiveType();
      Types.PrimitiveBuilder<PrimitiveType> builder =
          Types.primitive(primitive.getPrimitiveTypeName(), type.getRepetition())
              .as(type.getLogicalTypeAnnotation())
              .columnOrder(primitive.columnOrder());
      if (primitive.getPrimitiveTypeName()
          == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
        builder = builder.length(primitive.getTypeLength());
      }
      if (type.getId() != null) {
        builder = builder.id(type.getId().intValue());
      }
      return builder.named(name);
    }
    Types.GroupBuilder<org.apache.parquet.schema.GroupType> builder =
        Types.buildGroup(type.getRepetition())
            .as(type.getLogicalTypeAnnotation())
            .addFields(type.asGroupType().getFields().toArray(Type[]::new));
    if (type.getId() != null) {
      builder = builder.id(type.getId().intValue());
    }
    return builder.named(name);
  }
}
