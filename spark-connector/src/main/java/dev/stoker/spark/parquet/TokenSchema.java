package dev.stoker.spark.parquet;

import dev.stoker.loader.tokens.TokenLayout;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.StructType;

/**
 * What a read with {@code pack} or {@code pad} reads and shows: its one column of documents (lists
 * of integers of any length), the token rows' columns, and each row group's tokens from the
 * footers.
 */
public final class TokenSchema {
  private TokenSchema() {}

  /** The column of documents as the files hold it, and as the read reads it. */
  public record Documents(SourceColumn column, ColumnSpec spec) {}

  /**
   * The column of documents: the one {@code documentColumn} names, or the files' one list of
   * integers (with a tokenizer: one string column); as a variable-length int32 or int64 column (a
   * string as variable-length bytes).
   *
   * @throws IllegalArgumentException naming the candidates if there is none or more than one, or
   *     the named column is of another type
   */
  public static Documents documents(SourceDataset dataset) {
    String named = dataset.options().documentColumn();
    boolean text = dataset.options().tokens().tokenizer() != null;
    String wanted = text ? "string" : "list of integers";
    List<SourceColumn> lists = new ArrayList<>();
    for (String name : dataset.schema().sparkSchema().fieldNames()) {
      SourceColumn column = dataset.schema().column(name);
      SourceColumn readable = text ? column.asText() : column.integerList() ? column : null;
      if (named != null ? name.equalsIgnoreCase(named) : readable != null) {
        lists.add(readable != null ? readable : column);
      }
    }
    String option = dataset.options().tokens().toString();
    boolean fits =
        lists.size() == 1
            && (text ? lists.get(0).kind() == Kind.BINARY : lists.get(0).integerList());
    if (!fits) {
      throw new IllegalArgumentException(
          String.format(
              "%s reads %s (expected: %s; the files' columns are %s)",
              option,
              named != null
                  ? lists.isEmpty()
                      ? "column '" + named + "', which the files do not have"
                      : "column '" + named + "', " + lists.get(0).describe()
                  : lists.isEmpty() ? "no " + wanted : lists.size() + " columns of type " + wanted,
              expected(text, named != null),
              dataset.schema().sparkSchema().simpleString()));
    }
    ColumnSpec spec = TensorShapes.resolve(lists, dataset, true).get(0);
    if (!spec.variable()) {
      throw new IllegalArgumentException(
          String.format(
              "%s reads column '%s' as %s (expected: no shape.%s option: documents are of any "
                  + "length)",
              option, spec.name(), spec.lengthSource(), spec.name()));
    }
    return new Documents(lists.get(0), spec);
  }

  private static String expected(boolean text, boolean named) {
    if (text) {
      return named
          ? "documentColumn naming a string column, with tokenizer"
          : "one string column, or documentColumn naming one";
    }
    return named
        ? "documentColumn naming a column of array<int>, array<bigint> or array<smallint>"
        : "one column of array<int>, array<bigint> or array<smallint> token ids, or "
            + "documentColumn naming one";
  }

  /** The token rows' columns as Spark shows them. */
  public static StructType sparkSchema(TokenLayout layout, ColumnSpec documents) {
    return TransformedSchema.sparkSchema(
        layout.outputSchema(layout.idType(documents.dtype())), layout.toString());
  }

  /** The schema of a read with token rows. */
  public static StructType of(SourceDataset dataset) {
    return sparkSchema(dataset.options().tokens(), documents(dataset).spec());
  }

  /**
   * The ids in column {@code documents} of every row group, file by file (as {@link ParquetRead}
   * lists the groups): the footer's values less its nulls, which count the empty lists.
   *
   * @throws IllegalArgumentException if a footer does not count the column's nulls
   */
  static List<Long> groupTokens(SourceDataset dataset, ColumnSpec documents) {
    List<Long> tokens = new ArrayList<>();
    for (ParquetFile file : dataset.files()) {
      for (ParquetFile.RowGroup group : file.rowGroups()) {
        ParquetFile.ColumnStats stats = group.columns().get(documents.name());
        if (stats == null || stats.nulls() < 0) {
          throw new IllegalArgumentException(
              String.format(
                  "pack: row group %d of file '%s' has no statistics of column '%s', from which "
                      + "the ranks' spans of tokens are counted (expected: files written with "
                      + "statistics, as Spark writes them; rewrite the files, or use pad)",
                  group.ordinal(), file.path(), documents.name()));
        }
        tokens.add(stats.values() - stats.nulls());
      }
    }
    return tokens;
  }
}
