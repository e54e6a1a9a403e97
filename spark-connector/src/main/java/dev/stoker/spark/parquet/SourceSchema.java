package dev.stoker.spark.parquet;

import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The columns of a read's files, which must agree: the same names with the same types in every file
 * (nullability aside). The DataFrame's schema shows every column; selecting one the source cannot
 * read is an error at planning.
 */
public final class SourceSchema {
  private static final String READABLE =
      "format(\"stoker\") reads float, double, int and long "
          + "numbers, binary and fixed_len_byte_array values (as uint8 tensors) and lists of float, "
          + "double, int or long";

  private final Map<String, SourceColumn> columns;
  private final StructType sparkSchema;
  private final String firstFile;

  /** A table's columns that some data files lack (added since), to the first such file. */
  private final Map<String, String> missingIn;

  private SourceSchema(
      Map<String, SourceColumn> columns, String firstFile, Map<String, String> missingIn) {
    this.columns = columns;
    this.firstFile = firstFile;
    this.missingIn = missingIn;
    List<StructField> fields = new ArrayList<>();
    for (SourceColumn column : columns.values()) {
      fields.add(column.sparkField());
    }
    this.sparkSchema = new StructType(fields.toArray(StructField[]::new));
  }

  static SourceSchema of(List<ParquetFile> files, Configuration configured) {
    ParquetFile first = files.get(0);
    Map<String, SourceColumn> columns = columnsOf(first, configured);
    for (ParquetFile file : files.subList(1, files.size())) {
      checkSame(first, columns, file, columnsOf(file, configured));
    }
    return new SourceSchema(columns, first.path(), Map.of());
  }

  /**
   * The columns of a table's data files (under the table's names): a column some files lack, added
   * to the table since they were written, is one of the schema's, in the order files that hold it
   * give, but refused when selected ({@link #select}), since its rows in the older files have no
   * value; the columns every file holds are read as usual. Columns two files hold as different
   * types are refused.
   */
  static SourceSchema ofTable(List<ParquetFile> files, Configuration configured) {
    Map<String, SourceColumn> columns = new LinkedHashMap<>();
    Map<String, String> holder = new LinkedHashMap<>();
    List<Map<String, SourceColumn>> perFile = new ArrayList<>();
    for (ParquetFile file : files) {
      Map<String, SourceColumn> own = columnsOf(file, configured);
      perFile.add(own);
      for (SourceColumn column : own.values()) {
        SourceColumn known = columns.putIfAbsent(column.name(), column);
        if (known == null) {
          holder.put(column.name(), file.path());
        } else if (!DataType.equalsIgnoreNullability(known.sparkType(), column.sparkType())
            || known.fixedLength() != column.fixedLength()) {
          throw new IllegalArgumentException(
              "files disagree on their schema: file '"
                  + file.path()
                  + "' has column '"
                  + column.name()
                  + "' as "
                  + column.describe()
                  + ", but file '"
                  + holder.get(column.name())
                  + "' has it as "
                  + known.describe()
                  + " (expected: one type per column in every file of the table; rewrite the "
                  + "table's files)");
        }
      }
    }
    Map<String, String> missingIn = new LinkedHashMap<>();
    for (int f = 0; f < files.size(); f++) {
      for (String name : columns.keySet()) {
        if (!perFile.get(f).containsKey(name)) {
          missingIn.putIfAbsent(name, files.get(f).path());
        }
      }
    }
    return new SourceSchema(columns, files.get(0).path(), Map.copyOf(missingIn));
  }

  private static Map<String, SourceColumn> columnsOf(ParquetFile file, Configuration configured) {
    Map<String, SourceColumn> columns = new LinkedHashMap<>();
    for (StructField field : SparkParquet.sparkSchema(file.schema(), configured).fields()) {
      columns.put(field.name(), SourceColumn.of(field, file.schema()));
    }
    return columns;
  }

  private static void checkSame(
      ParquetFile first,
      Map<String, SourceColumn> expected,
      ParquetFile file,
      Map<String, SourceColumn> actual) {
    for (SourceColumn want : expected.values()) {
      SourceColumn got = actual.get(want.name());
      String problem = null;
      if (got == null) {
        problem = "has no column '" + want.name() + "'";
      } else if (!DataType.equalsIgnoreNullability(want.sparkType(), got.sparkType())
          || want.fixedLength() != got.fixedLength()) {
        problem = "has column '" + want.name() + "' as " + got.describe();
      }
      if (problem != null) {
        throw disagree(first, file, problem, "column '" + want.name() + "' as " + want.describe());
      }
    }
    for (SourceColumn got : actual.values()) {
      if (!expected.containsKey(got.name())) {
        throw disagree(
            first, file, "has a column '" + got.name() + "'", "no column '" + got.name() + "'");
      }
    }
  }

  private static IllegalArgumentException disagree(
      ParquetFile first, ParquetFile file, String problem, String firstHas) {
    return new IllegalArgumentException(
        "files disagree on their schema: file '"
            + file.path()
            + "' "
            + problem
            + ", but file '"
            + first.path()
            + "' has "
            + firstHas
            + " (expected: the same columns and types in "
            + "every file; rewrite the odd file, or move it out of the input)");
  }

  /** Column {@code name} of the files, or null. */
  SourceColumn column(String name) {
    return columns.get(name);
  }

  /** Every column, as the DataFrame shows it. */
  public StructType sparkSchema() {
    return sparkSchema;
  }

  /** The columns of {@code required}, in its order; an unreadable one is an error. */
  public List<SourceColumn> select(StructType required) {
    List<SourceColumn> selected = new ArrayList<>();
    for (StructField field : required.fields()) {
      SourceColumn column = columns.get(field.name());
      if (column == null) {
        throw new IllegalArgumentException(
            "column '"
                + field.name()
                + "' is not in the files "
                + "(expected one of: "
                + String.join(", ", columns.keySet())
                + ")");
      }
      String lacking = missingIn.get(column.name());
      if (lacking != null) {
        throw new IllegalArgumentException(
            "column '"
                + column.name()
                + "' is not in the table's data file '"
                + lacking
                + "' (added to the table after that file was written): its rows there have no "
                + "value, and Stoker loads no nulls (expected: leave the column out of the read, "
                + "or rewrite the table's files with a value in every row)");
      }
      if (column.kind() == Kind.UNSUPPORTED) {
        throw new IllegalArgumentException(
            "column '"
                + column.name()
                + "' is "
                + column.describe()
                + " in file '"
                + firstFile
                + "': "
                + READABLE
                + " (expected: "
                + "one of those; select only the columns to load, e.g. .select(\"image\", \"label\"),"
                + " or cast it when writing the data)");
      }
      selected.add(column);
    }
    return selected;
  }
}
