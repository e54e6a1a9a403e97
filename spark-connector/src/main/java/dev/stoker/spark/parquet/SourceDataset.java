package dev.stoker.spark.parquet;

import dev.stoker.spark.options.OptionRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * The files of one read, found and checked on the driver when the DataFrame is made: the data files
 * under the paths, their footers and the schema they agree on. Planning a scan of it reads nothing
 * more, apart from the first value of a binary column without a shape.
 *
 * @param readerRows rows per batch of Spark's Parquet reader, from the session
 * @param table the snapshot of the Delta or Iceberg table read, or null: Parquet files
 */
public record SourceDataset(
    SourceOptions options,
    HadoopConf hadoop,
    List<ParquetFile> files,
    SourceSchema schema,
    int readerRows,
    TableSnapshot table) {

  /** The dataset of Parquet files. */
  public SourceDataset(
      SourceOptions options,
      HadoopConf hadoop,
      List<ParquetFile> files,
      SourceSchema schema,
      int readerRows) {
    this(options, hadoop, files, schema, readerRows, null);
  }

  /** The session's setting of the Parquet reader's batch rows. */
  static final String READER_ROWS = "spark.sql.parquet.columnarReaderBatchSize";

  /**
   * The dataset of a read given {@code given}, the session's {@code spark.stoker.*} settings
   * standing in for the options not given.
   */
  public static SourceDataset load(Map<String, String> given) {
    SparkSession spark = SparkSession.active();
    SourceOptions options = SourceOptions.parse(given, OptionRegistry.stokerSettings(spark));
    Configuration conf = new Configuration(spark.sparkContext().hadoopConfiguration());
    options.hadoop().forEach(conf::set);
    SparkParquet.configure(conf);
    int readerRows = Integer.parseInt(spark.conf().get(READER_ROWS, "4096"));
    if (options.table() != null) {
      TableSnapshot table = TableSnapshot.read(spark, options.table(), conf);
      List<ParquetFile> files =
          table.keptFiles(table.named(ParquetFooters.read(table.files(), conf)));
      if (files.isEmpty()) {
        throw new IllegalArgumentException(
            table.table().describe()
                + " at version "
                + table.version()
                + " has no rows (expected: a table with rows; check the version)");
      }
      SourceSchema schema = SourceSchema.ofTable(files, conf);
      table.checkColumns(schema.sparkSchema().fieldNames());
      checkLabels(options, schema);
      return new SourceDataset(options, new HadoopConf(conf), files, schema, readerRows, table);
    }
    List<ParquetFile> files;
    try {
      files = ParquetFooters.read(ParquetListing.list(options.paths(), conf), conf);
    } catch (IOException e) {
      throw new UncheckedIOException("listing " + options.paths() + ": " + e.getMessage(), e);
    }
    SourceSchema schema = SourceSchema.of(files, conf);
    checkLabels(options, schema);
    return new SourceDataset(options, new HadoopConf(conf), files, schema, readerRows);
  }

  private static void checkLabels(SourceOptions options, SourceSchema schema) {
    if (options.labelColumn() != null) {
      InputLabels.check(schema, options.labelColumn());
    }
  }

  /**
   * The dataset of a plain Parquet scan's {@code paths} (files, as Spark listed them), read with
   * Stoker's defaults.
   */
  public static SourceDataset ofFiles(List<String> paths, Configuration conf) {
    SparkParquet.configure(conf);
    List<ParquetFile> files;
    try {
      files = ParquetFooters.read(ParquetListing.files(paths, conf), conf);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "reading the footers of " + paths.size() + " Parquet " + "file(s): " + e.getMessage(), e);
    }
    int readerRows = Integer.parseInt(SparkSession.active().conf().get(READER_ROWS, "4096"));
    return new SourceDataset(
        SourceOptions.defaults(paths),
        new HadoopConf(conf),
        files,
        SourceSchema.of(files, conf),
        readerRows);
  }

  /** Where the files keep the columns: a table's mapping, else {@link ColumnNames#BY_NAME}. */
  public ColumnNames names() {
    return table == null ? ColumnNames.BY_NAME : table.names();
  }

  /** The paths as given, for messages. */
  public String input() {
    if (table != null) {
      return table.table().describe() + " at version " + table.version();
    }
    List<String> paths = options.paths();
    return paths.size() == 1 ? "'" + paths.get(0) + "'" : "'" + String.join("', '", paths) + "'";
  }
}
