package dev.stoker.spark.parquet;

import dev.stoker.loader.DType;
import dev.stoker.loader.metrics.ShuffleQuality;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * The class label of every row of a read's input, by the row's ordinal in the input (every file's
 * kept rows in listing order, as plans number them), and how many rows hold each label: what the
 * order's label measure ({@link PlanQuality}) compares each step's batches with. Read once on the
 * driver, row group by row group, with Spark's Parquet reader, for inputs of up to {@link
 * #MAX_ROWS} rows.
 *
 * @param labels each input row's label
 * @param counts for each label, the rows that hold it
 */
public record InputLabels(int[] labels, long[] counts) {
  /** Most input rows whose labels are read: 64 MiB of labels on the driver. */
  public static final int MAX_ROWS = 1 << 24;

  /** The labels could not be read; the measure says why and the read goes on. */
  public static final class Unmeasured extends Exception {
    private static final long serialVersionUID = 1L;

    Unmeasured(String message) {
      super(message);
    }
  }

  /**
   * Checks that {@code column} is a column of {@code schema} that holds class indices.
   *
   * @throws IllegalArgumentException naming the option, the column and the remedy
   */
  static void check(SourceSchema schema, String column) {
    SourceColumn found = schema.column(column);
    String problem =
        found == null
            ? "is not a column of the input (expected one of: "
                + String.join(", ", schema.sparkSchema().fieldNames())
                + ")"
            : found.kind() != SourceColumn.Kind.SCALAR
                    || (found.dtype() != DType.INT32 && found.dtype() != DType.INT64)
                ? "is " + found.describe() + " (expected: an int or bigint column of class indices)"
                : null;
    if (problem != null) {
      throw new IllegalArgumentException("labelColumn: '" + column + "' " + problem);
    }
  }

  /**
   * The labels of column {@code column} of {@code dataset}'s input.
   *
   * @throws Unmeasured if the input has more than {@link #MAX_ROWS} rows, or a label is null or
   *     outside {@code [0, ShuffleQuality.MAX_LABELS)}
   */
  static InputLabels read(SourceDataset dataset, String column) throws Unmeasured {
    long rows = 0; // every row of the files, those a table deleted too, as they are read
    for (ParquetFile file : dataset.files()) {
      rows += file.rows();
    }
    if (rows > MAX_ROWS) {
      throw new Unmeasured(
          String.format("the input has %,d rows, more than the %,d read for it", rows, MAX_ROWS));
    }
    SourceColumn source = dataset.schema().column(column);
    StructType requested = new StructType(new StructField[] {source.sparkField()});
    ColumnNames names = dataset.names();
    int partition = names.partition(column);
    int[] labels = new int[(int) rows];
    int at = 0;
    for (ParquetFile file : dataset.files()) {
      KeptRows kept = file.kept();
      for (ParquetFile.RowGroup group : file.rowGroups()) {
        if (group.rows() == 0) {
          continue;
        }
        at =
            partition >= 0
                ? fill(labels, at, names.value(file.path(), partition), file, group, column)
                : readGroup(labels, at, dataset, file, group, requested, column);
      }
      if (kept != null) {
        at = keepOnly(labels, at, file);
      }
    }
    labels = Arrays.copyOf(labels, at);
    long[] counts = new long[1];
    for (int i = 0; i < at; i++) {
      if (labels[i] >= counts.length) {
        counts = Arrays.copyOf(counts, labels[i] + 1);
      }
      counts[labels[i]]++;
    }
    return new InputLabels(labels, counts);
  }

  /**
   * Reads the labels of every row of {@code group} into {@code labels} from {@code at}; returns the
   * next free index.
   */
  private static int readGroup(
      int[] labels,
      int at,
      SourceDataset dataset,
      ParquetFile file,
      ParquetFile.RowGroup group,
      StructType requested,
      String column)
      throws Unmeasured {
    long row = group.firstRow();
    try (SparkParquet.Reader reader =
        SparkParquet.open(
            file.path(),
            group.start(),
            group.bytes(),
            requested,
            dataset.hadoop().get(),
            dataset.readerRows(),
            dataset.names())) {
      boolean longs = requested.fields()[0].dataType() instanceof LongType;
      while (reader.nextBatch()) {
        ColumnVector vector = reader.resultBatch().column(0);
        int n = reader.resultBatch().numRows();
        for (int i = 0; i < n; i++, row++) {
          if (vector.isNullAt(i)) {
            throw bad(column, "null", file, row);
          }
          long label = longs ? vector.getLong(i) : vector.getInt(i);
          if (label < 0 || label >= ShuffleQuality.MAX_LABELS) {
            throw bad(column, Long.toString(label), file, row);
          }
          labels[at++] = (int) label;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "reading column '" + column + "' of file '" + file.path() + "': " + e.getMessage(), e);
    }
    return at;
  }

  /** A partition's label, the same in every row of {@code group}. */
  private static int fill(
      int[] labels,
      int at,
      Number value,
      ParquetFile file,
      ParquetFile.RowGroup group,
      String column)
      throws Unmeasured {
    if (value == null || value.longValue() < 0 || value.longValue() >= ShuffleQuality.MAX_LABELS) {
      throw bad(column, String.valueOf(value), file, group.firstRow());
    }
    Arrays.fill(labels, at, at + (int) group.rows(), value.intValue());
    return at + (int) group.rows();
  }

  /**
   * Keeps, of the labels of {@code file}'s rows (the last {@code file.rows()} before {@code end}),
   * those of the rows its table keeps; returns the next free index.
   */
  private static int keepOnly(int[] labels, int end, ParquetFile file) {
    int first = (int) (end - file.rows());
    int to = first;
    KeptRows kept = file.kept();
    for (long row = 0; row < file.rows(); row++) {
      if (kept.count(row, row + 1) == 1) {
        labels[to++] = labels[first + (int) row];
      }
    }
    return to;
  }

  private static Unmeasured bad(String column, String value, ParquetFile file, long row) {
    return new Unmeasured(
        String.format(
            "column '%s' holds %s in row %d of file '%s' (expected: class indices 0 to %d)",
            column, value, row, file.path(), ShuffleQuality.MAX_LABELS - 1));
  }
}
