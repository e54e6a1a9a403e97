package dev.stoker.spark.parquet;

import dev.stoker.spark.parquet.ParquetFile.ColumnStats;
import dev.stoker.spark.parquet.ParquetFile.RowGroup;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * Finds the shape of every column a read loads, from the footers where they tell (a list's values
 * per row, a {@code fixed_len_byte_array}'s length), a {@code shape.<column>} option, or else the
 * first row of the data (a binary column), and refuses, while planning, what the footers show to be
 * wrong: nulls, and lists whose values are not a whole number per row or differ between row groups.
 * Executors check every row again.
 */
public final class TensorShapes {
  private static final String NO_NULLS =
      "no nulls in a column format(\"stoker\") loads; drop or "
          + "fill them before writing, e.g. df.na().drop() or df.na().fill(...)";

  private TensorShapes() {}

  /** The specs of columns read as they are stored (no transform). */
  public static List<ColumnSpec> resolve(List<SourceColumn> selected, SourceDataset dataset) {
    return resolve(selected, dataset, false);
  }

  /**
   * The columns' specs; with {@code variableBinary} (a read with a transform), a binary column that
   * is neither a {@code fixed_len_byte_array} nor given a shape is a variable-length uint8 column,
   * and a list of int or bigint not given a shape, or any list of smallint (widened as read), a
   * variable-length int32 or int64 column.
   */
  public static List<ColumnSpec> resolve(
      List<SourceColumn> selected, SourceDataset dataset, boolean variableBinary) {
    SourceSchema schema = dataset.schema();
    List<ParquetFile> files = dataset.files();
    Map<String, int[]> shapes = dataset.options().shapes();
    for (String name : shapes.keySet()) {
      if (!hasIgnoringCase(schema, name)) {
        throw new IllegalArgumentException(
            SourceOptions.SHAPE_PREFIX
                + name
                + ": no column '"
                + name
                + "' (expected one of: "
                + String.join(", ", schema.sparkSchema().fieldNames())
                + ")");
      }
    }
    List<ColumnSpec> specs = new ArrayList<>();
    for (SourceColumn column : selected) {
      int[] shape = shapes.get(column.name());
      if (column.widened()) {
        checkWidened(column, shape, variableBinary);
      }
      if (variableBinary && column.integerList() && (shape == null || column.widened())) {
        // Empty lists are rows of 0 values, which the footers count as nulls: rows are checked
        // as they are read.
        specs.add(ColumnSpec.variable(column.name(), column.dtype(), meanBytes(column, files)));
        continue;
      }
      checkNulls(column, files);
      specs.add(
          switch (column.kind()) {
            case SCALAR -> scalar(column, shape);
            case LIST -> tensor(column, shape, listLength(column, files), "the footers");
            case BINARY ->
                column.fixedLength() > 0
                    ? tensor(column, shape, column.fixedLength(), "its fixed_len_byte_array length")
                    : shape != null
                        ? tensor(column, shape, -1, null)
                        : variableBinary
                            ? ColumnSpec.variable(column.name(), meanBytes(column, files))
                            : tensor(
                                column,
                                null,
                                firstLength(column, dataset),
                                "the first row of file '" + firstFile(files).path() + "'");
            case VARIABLE, UNSUPPORTED ->
                throw new IllegalStateException(column.kind() + " column selected");
          });
    }
    return specs;
  }

  /** A list of smallint: read only under a transform, as a variable-length int32 column. */
  private static void checkWidened(SourceColumn column, int[] shape, boolean variable) {
    if (!variable) {
      throw new IllegalArgumentException(
          String.format(
              "column '%s' is %s: format(\"stoker\") reads a list of smallint only with option "
                  + "%s, as variable-length int32 values (expected: a list of float, double, int "
                  + "or long; cast it to array<int> when writing the data, or read it through a "
                  + "transform)",
              column.name(), column.describe(), SourceOptions.TRANSFORMS));
    }
    if (shape != null) {
      throw new IllegalArgumentException(
          String.format(
              "%s%s: %s (expected: no shape for column '%s', a list of smallint, which a read "
                  + "with %s takes as variable-length int32 values)",
              SourceOptions.SHAPE_PREFIX,
              column.name(),
              Arrays.toString(shape).replace(" ", ""),
              column.name(),
              SourceOptions.TRANSFORMS));
    }
  }

  private static boolean hasIgnoringCase(SourceSchema schema, String name) {
    for (String field : schema.sparkSchema().fieldNames()) {
      if (field.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  private static ColumnSpec scalar(SourceColumn column, int[] shape) {
    if (shape != null) {
      throw new IllegalArgumentException(
          SourceOptions.SHAPE_PREFIX
              + column.name()
              + ": "
              + Arrays.toString(shape)
              + " (expected: no shape for column '"
              + column.name()
              + "', which holds one "
              + column.dtype().label()
              + " per row)");
    }
    return new ColumnSpec(column.name(), Kind.SCALAR, column.dtype(), new int[0], "");
  }

  /** A tensor of {@code length} values (-1: the shape's), shaped by the option if given. */
  private static ColumnSpec tensor(SourceColumn column, int[] shape, long length, String source) {
    if (shape == null) {
      return new ColumnSpec(
          column.name(),
          column.kind(),
          column.dtype(),
          new int[] {Math.toIntExact(length)},
          source);
    }
    long product = 1;
    for (int dim : shape) {
      product *= dim;
    }
    String option = SourceOptions.SHAPE_PREFIX + column.name();
    if (length >= 0 && product != length) {
      throw new IllegalArgumentException(
          option
              + ": "
              + Arrays.toString(shape).replace(" ", "")
              + " = "
              + product
              + " values (expected: "
              + length
              + " values per row, as "
              + source
              + " say"
              + (source.startsWith("the footers") ? "" : "s")
              + "; fix the shape)");
    }
    return new ColumnSpec(column.name(), column.kind(), column.dtype(), shape.clone(), option);
  }

  /**
   * Checks from the footers that no column of {@code selected} holds a null.
   *
   * @throws IllegalArgumentException naming the column, the row group and the file
   */
  public static void checkNulls(List<SourceColumn> selected, List<ParquetFile> files) {
    for (SourceColumn column : selected) {
      checkNulls(column, files);
    }
  }

  private static void checkNulls(SourceColumn column, List<ParquetFile> files) {
    for (ParquetFile file : files) {
      for (RowGroup group : file.rowGroups()) {
        ColumnStats stats = group.columns().get(column.name());
        if (stats != null && stats.nulls() > 0) {
          throw new IllegalArgumentException(
              String.format(
                  "column '%s' holds %d null(s)%s in "
                      + "row group %d (rows %d..%d) of file '%s' (expected: %s)",
                  column.name(),
                  stats.nulls(),
                  column.kind() == Kind.LIST
                      ? " (null lists, empty lists or null " + "values)"
                      : "",
                  group.ordinal(),
                  group.firstRow(),
                  group.firstRow() + group.rows() - 1,
                  file.path(),
                  NO_NULLS));
        }
      }
    }
  }

  /** A list's values per row, which every row group must agree on. */
  private static long listLength(SourceColumn column, List<ParquetFile> files) {
    long length = -1;
    String where = null;
    for (ParquetFile file : files) {
      for (RowGroup group : file.rowGroups()) {
        if (group.rows() == 0) {
          continue;
        }
        long values = group.columns().get(column.name()).values();
        String here = "row group " + group.ordinal() + " of file '" + file.path() + "'";
        if (values % group.rows() != 0) {
          throw new IllegalArgumentException(
              String.format(
                  "column '%s' has %d values in the %d "
                      + "rows of %s, not a whole number per row (expected: the same number of "
                      + "values in every row; rewrite the rows of other lengths, or filter them out)",
                  column.name(), values, group.rows(), here));
        }
        long perRow = values / group.rows();
        if (length >= 0 && perRow != length) {
          throw new IllegalArgumentException(
              String.format(
                  "column '%s' has %d values per row in "
                      + "%s but %d in %s (expected: one length in every file; rewrite the rows of "
                      + "the other length, or read the files apart)",
                  column.name(), perRow, here, length, where));
        }
        if (perRow > Integer.MAX_VALUE) {
          throw new IllegalArgumentException(
              "column '"
                  + column.name()
                  + "' has "
                  + perRow
                  + " values per row in "
                  + here
                  + " (expected: at most "
                  + Integer.MAX_VALUE
                  + ")");
        }
        length = perRow;
        where = here;
      }
    }
    return length;
  }

  /** A column's mean uncompressed bytes per row over every row group, as the footers say. */
  private static long meanBytes(SourceColumn column, List<ParquetFile> files) {
    long bytes = 0;
    long rows = 0;
    for (ParquetFile file : files) {
      for (RowGroup group : file.rowGroups()) {
        ColumnStats stats = group.columns().get(column.name());
        if (stats != null) {
          bytes += stats.uncompressed();
          rows += group.rows();
        }
      }
    }
    return rows == 0 ? 0 : (bytes + rows - 1) / rows;
  }

  private static ParquetFile firstFile(List<ParquetFile> files) {
    for (ParquetFile file : files) {
      if (file.rows() > 0) {
        return file;
      }
    }
    return files.get(0);
  }

  /** The length of the first value of a binary column, read from the first non-empty file. */
  private static long firstLength(SourceColumn column, SourceDataset dataset) {
    ParquetFile file = firstFile(dataset.files());
    RowGroup group =
        file.rowGroups().stream()
            .filter(g -> g.rows() > 0)
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no rows in the files (expected: at " + "least one row)"));
    StructType requested = new StructType(new StructField[] {column.sparkField()});
    try (SparkParquet.Reader reader =
        SparkParquet.open(
            file.path(),
            group.start(),
            group.bytes(),
            requested,
            dataset.hadoop().get(),
            1,
            dataset.names())) {
      if (!reader.nextBatch()) {
        throw new IllegalStateException(
            "row group "
                + group.ordinal()
                + " of file '"
                + file.path()
                + "' gave no rows, though its footer says "
                + group.rows());
      }
      ColumnVector vector = reader.resultBatch().column(0);
      if (vector.isNullAt(0)) {
        throw new IllegalArgumentException(
            String.format(
                "column '%s' is null in row %d of file " + "'%s' (expected: %s)",
                column.name(), group.firstRow(), file.path(), NO_NULLS));
      }
      int length = vector.getBinary(0).length;
      if (length == 0) {
        throw new IllegalArgumentException(
            String.format(
                "column '%s' holds 0 bytes in row %d of file '%s', its first row, so its rows "
                    + "have no length to load as a tensor (expected: the same length > 0 in every "
                    + "row, given by option %s%s if need be%s)",
                column.name(),
                group.firstRow(),
                file.path(),
                SourceOptions.SHAPE_PREFIX,
                column.name(),
                RowErrors.VARIABLE_REMEDY));
      }
      return length;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "reading the first row of column '"
              + column.name()
              + "' in file '"
              + file.path()
              + "' to find its length: "
              + e.getMessage(),
          e);
    }
  }
}
