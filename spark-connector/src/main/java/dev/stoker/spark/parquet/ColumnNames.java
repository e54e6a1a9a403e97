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
 * <p>A file that gives its columns field ids is matched by id only (a column dropped and added
 * again under the same name has a new id, and older files hold the old one); a file without ids
 * (written before the table's mapping) by the physical name, then the table's name. Without a
 * mapping ({@link #BY_NAME}) every column is found by its name.
 *
 * @param fields the table's column name to where files keep it
 */
public record ColumnNames(Map<String, FileField> fields) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Every column under its own name. */
  public static final ColumnNames BY_NAME = new ColumnNames(Map.of());

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
  }

  /** Whether every column is found by its own name. */
  public boolean byName() {
    return fields.isEmpty();
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
    if (byName()) {
      return file;
    }
    Map<String, String> tableNames = new LinkedHashMap<>();
    for (String column : fields.keySet()) {
      String inFile = nameIn(file.schema(), column);
      if (inFile != null) {
        tableNames.put(inFile, column);
      }
    }
    List<Type> renamed = new ArrayList<>();
    for (Type type : file.schema().getFields()) {
      String column = tableNames.get(type.getName());
      if (column != null) {
        renamed.add(renamed(type, column));
      }
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
