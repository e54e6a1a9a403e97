package dev.stoker.spark.source;

import dev.stoker.spark.parquet.ColumnSpec;
import dev.stoker.spark.parquet.ParquetFile;
import dev.stoker.spark.parquet.RankPlanner;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.ShuffleWindow;
import dev.stoker.spark.parquet.SourceColumn;
import dev.stoker.spark.parquet.SourceDataset;
import dev.stoker.spark.parquet.SourceOptions;
import dev.stoker.spark.parquet.TensorShapes;
import dev.stoker.loader.LoaderConfig;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Placement;
import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.spark.parquet.ParquetFile.ColumnStats;
import dev.stoker.spark.parquet.ParquetFile.RowGroup;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownTableSample;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a scan on the driver: the columns Spark asks for (only those are read), their shapes, and
 * every rank's rows, from the footers alone: no Spark job, no shuffle.
 *
 * <p>A filter or a sample that Spark hands the scan is refused: applied to rows already planned
 * into equal batches, it would leave the ranks with fewer, unequal and partial batches. Spark
 * hands the scan every deterministic filter it can translate (comparisons, {@code IN}, {@code IS
 * NULL}, string prefixes, and arithmetic in ANSI mode, Spark 4's default), from the DataFrame API
 * and from SQL over a view alike, and every {@code sample} or {@code TABLESAMPLE} directly over
 * the read; a filter it cannot translate (a UDF, a non-deterministic condition, a subquery,
 * arithmetic outside ANSI mode) stays above the scan unseen, as do operators that drop rows
 * themselves (a join, {@code distinct}). A {@code limit} (and so {@code show()}) is let through:
 * it takes the first rows for a look, not batches per rank.
 */
final class StokerScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns,
    SupportsPushDownV2Filters, SupportsPushDownTableSample {
  private static final Logger LOG = LoggerFactory.getLogger(StokerScanBuilder.class);
  /** Most rows of the default shuffle buffer. */
  static final int WINDOW_ROWS = 8192;
  /** Most bytes of the default shuffle buffer, and of the Parquet reader's batch. */
  static final long WINDOW_BYTES = 32L << 20;

  private final SourceDataset dataset;
  private StructType required;

  StokerScanBuilder(SourceDataset dataset) {
    this.dataset = dataset;
    this.required = dataset.schema().sparkSchema();
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.required = requiredSchema;
  }

  /**
   * Refuses every filter Spark would push to the scan (none is pushed; an empty array is fine).
   *
   * @throws UnsupportedOperationException naming the read, the filters and the remedy
   */
  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    if (predicates.length > 0) {
      throw new UnsupportedOperationException(String.format(Locale.ROOT, "format(\"stoker\") "
          + "read of %s: a filter over it (%s) would drop rows from batches already planned, "
          + "leaving the ranks with unequal, partial batches (expected: no filter on a stoker "
          + "read; filter the data before writing it, or read the files with "
          + "spark.read().parquet(...), filter that and hand it to StokerSpark.on(...), which "
          + "rebalances the rows across the ranks)", dataset.input(), String.join(" AND ",
          Arrays.stream(predicates).map(Predicate::toString).toList())));
    }
    return predicates;
  }

  @Override
  public Predicate[] pushedPredicates() {
    return new Predicate[0];
  }

  /**
   * Refuses a sample over the read.
   *
   * @throws UnsupportedOperationException naming the read, the sample and the remedy
   */
  @Override
  public boolean pushTableSample(double lowerBound, double upperBound, boolean withReplacement,
      long seed) {
    throw new UnsupportedOperationException(String.format(Locale.ROOT, "format(\"stoker\") read "
        + "of %s: a sample of it (fraction %s, %s replacement, seed %d) would drop rows from "
        + "batches already planned, leaving the ranks with unequal, partial batches (expected: "
        + "no sample of a stoker read; sample the data before writing it, or read the files with "
        + "spark.read().parquet(...), sample that and hand it to StokerSpark.on(...), which "
        + "rebalances the rows across the ranks)", dataset.input(), upperBound - lowerBound,
        withReplacement ? "with" : "without", seed));
  }

  @Override
  public Scan build() {
    SourceOptions options = dataset.options();
    LoaderOptions loader = options.loader();
    List<SourceColumn> selected = dataset.schema().select(required);
    List<ColumnSpec> columns = TensorShapes.resolve(selected, dataset.schema(), dataset.files(),
        options.shapes(), dataset.hadoop().get());
    ReadPlan plan = RankPlanner.plan(groups(selected), options.worldSize(), loader.batchSize(),
        loader.dropLast(), loader.shuffle(), loader.seed(), options.epoch(), dataset.input());
    long rowBytes = Math.max(1, columns.stream().mapToLong(ColumnSpec::rowBytes).sum());
    int windowRows = windowRows(options.shuffleBuffer(), rowBytes, columns);
    int readerRows = (int) Math.max(1, Math.min(dataset.readerRows(), WINDOW_BYTES / rowBytes));
    List<StructField> fields = new ArrayList<>();
    for (SourceColumn column : selected) {
      fields.add(column.sparkField());
    }
    ReadConfig config = new ReadConfig(LoaderConfig.of(loader, Placement.of(0,
        options.worldSize())), options.epoch(), new StructType(fields.toArray(StructField[]::new)),
        List.copyOf(columns), windowRows, readerRows, dataset.hadoop(),
        options.verifyChecksums());
    StokerScan scan = new StokerScan(plan, config, dataset.files().size(), dataset.input());
    LOG.info("{}", scan.description());
    return scan;
  }

  /** Every row group of every file, file by file, with the bytes of the selected columns. */
  private List<RankPlanner.Group> groups(List<SourceColumn> selected) {
    List<RankPlanner.Group> groups = new ArrayList<>();
    for (ParquetFile file : dataset.files()) {
      for (RowGroup group : file.rowGroups()) {
        long bytes = 0;
        boolean decodable = true;
        for (SourceColumn column : selected) {
          ColumnStats stats = group.columns().get(column.name());
          bytes += stats == null ? 0 : stats.bytes();
          decodable &= stats != null && stats.decodable();
        }
        groups.add(new RankPlanner.Group(file.path(), group, bytes, decodable));
      }
    }
    return groups;
  }

  private static int windowRows(Integer given, long rowBytes, List<ColumnSpec> columns) {
    if (given == null) {
      return (int) Math.max(1, Math.min(WINDOW_ROWS, WINDOW_BYTES / rowBytes));
    }
    long bytes = ShuffleWindow.bytes(columns, given);
    if (bytes > DirectAllocator.MAX_BLOCK) {
      throw new IllegalArgumentException(String.format("%s: %d rows of %d bytes make %d bytes "
              + "(expected: at most %d bytes, the largest block; lower %s)",
          SourceOptions.SHUFFLE_BUFFER, given, rowBytes, bytes, DirectAllocator.MAX_BLOCK,
          SourceOptions.SHUFFLE_BUFFER));
    }
    return given;
  }
}
