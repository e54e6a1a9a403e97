package dev.stoker.spark.parquet;

import dev.stoker.loader.tokens.TokenLayout;
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

  /**
   * The column of documents: the one {@code documentColumn} names, or the files' one list of
   * integers; as a variable-length int32 or int64 column.
   *
   * @throws IllegalArgumentException naming the candidates if there is none or more than one, or
   *     the named column is no list of integers
   */
  public static ColumnSpec documents(SourceDataset dataset) {
    String named = dataset.options().documentColumn();
    List<SourceColumn> lists = new ArrayList<>();
    for (SourceColumn column : TransformedSchema.inputColumns(dataset.schema())) {
      if (named != null ? column.name().equalsIgnoreCase(named) : column.integerList()) {
        lists.add(column);
      }
    }
    String option = dataset.options().tokens().toString();
    if (lists.size() != 1 || !lists.get(0).integerList()) {
      throw new IllegalArgumentException(
          String.format(
              "%s reads %s (expected: %s; the files' columns are %s)",
              option,
              named != null
                  ? lists.isEmpty()
                      ? "column '" + named + "', which the files do not have"
                      : "column '" + named + "', " + lists.get(0).describe()
                  : lists.isEmpty() ? "no list of integers" : lists.size() + " lists of integers",
              named != null
                  ? "documentColumn naming a column of array<int>, array<bigint> or array<smallint>"
                  : "one column of array<int>, array<bigint> or array<smallint> token ids, or "
                      + "documentColumn naming one",
              dataset.schema().sparkSchema().simpleString()));
    }
    ColumnSpec spec =
        TensorShapes.resolve(
                lists,
                dataset.schema(),
                dataset.files(),
                dataset.options().shapes(),
                dataset.hadoop().get(),
                true)
            .get(0);
    if (!spec.variable()) {
      throw new IllegalArgumentException(
          String.format(
              "%s reads column '%s' as %s (expected: no shape.%s option: documents are of any "
                  + "length)",
              option, spec.name(), spec.lengthSource(), spec.name()));
    }
    return spec;
  }

  /** The token rows' columns as Spark shows them. */
  public static StructType sparkSchema(TokenLayout layout, ColumnSpec documents) {
    return TransformedSchema.sparkSchema(layout.outputSchema(documents.dtype()), layout.toString());
  }

  /** The schema of a read with token rows. */
  public static StructType of(SourceDataset dataset) {
    return sparkSchema(dataset.options().tokens(), documents(dataset));
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
