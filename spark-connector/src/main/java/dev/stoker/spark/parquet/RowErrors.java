package dev.stoker.spark.parquet;

import dev.stoker.spark.parquet.SourceColumn.Kind;

/** The errors for a bad row of a column, the same whichever reader finds it. */
public final class RowErrors {
  /** How to read a binary column whose rows differ in length. */
  static final String VARIABLE_REMEDY =
      "; for bytes of varying length (e.g. encoded images), set option transforms to a transform "
          + "that reads them as variable-length values";

  private RowErrors() {}

  /** A row the file holds as written but that the column cannot take: a data error. */
  public static final class BadRow extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    BadRow(String message) {
      super(message);
    }
  }

  /** A null where a value is needed; {@code what} e.g. {@code "is null"}. */
  static BadRow nullValue(ColumnSpec column, String what, long row, String path) {
    return new BadRow(
        String.format(
            "column '%s' %s in row %d of file '%s' "
                + "(expected: no nulls in a column format(\"stoker\") loads; drop or fill them before "
                + "writing, e.g. df.na().drop() or df.na().fill(...))",
            column.name(), what, row, path));
  }

  /** A row of another length; {@code actual} e.g. {@code "9"} or {@code "more than 8"}. */
  static BadRow wrongLength(ColumnSpec column, String actual, long row, String path) {
    int length = column.elements();
    String source = column.lengthSource();
    return new BadRow(
        String.format(
            "column '%s' has %s %s in row %d of file "
                + "'%s' (expected: %d = %s, as %s say%s; write every row with %d, or filter out the "
                + "others before loading%s)",
            column.name(),
            actual,
            column.kind() == Kind.LIST ? "values" : "bytes",
            row,
            path,
            length,
            column.shapeText(),
            source,
            source.startsWith("the footers") ? "" : "s",
            length,
            column.kind() == Kind.BINARY ? VARIABLE_REMEDY : ""));
  }
}
