package dev.stoker.spark.source;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.parquet.ParquetRead;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.SourceDataset;
import dev.stoker.spark.parquet.SourceOptions;
import java.util.Arrays;
import java.util.Locale;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownTableSample;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a scan on the driver: the columns Spark asks for (only those are read), their shapes, and
 * every rank's rows, from the footers alone: no Spark job, no shuffle.
 *
 * <p>A filter or a sample that Spark hands the scan is refused: applied to rows already planned
 * into equal batches, it would leave the ranks with fewer, unequal and partial batches. Spark hands
 * the scan every deterministic filter it can translate (comparisons, {@code IN}, {@code IS NULL},
 * string prefixes, and arithmetic in ANSI mode, Spark 4's default), from the DataFrame API and from
 * SQL over a view alike, and every {@code sample} or {@code TABLESAMPLE} directly over the read; a
 * filter it cannot translate (a UDF, a non-deterministic condition, a subquery, arithmetic outside
 * ANSI mode) stays above the scan unseen, as do operators that drop rows themselves (a join, {@code
 * distinct}). A {@code limit} (and so {@code show()}) is let through: it takes the first rows for a
 * look, not batches per rank.
 */
final class StokerScanBuilder
    implements ScanBuilder,
        SupportsPushDownRequiredColumns,
        SupportsPushDownV2Filters,
        SupportsPushDownTableSample {
  private static final Logger LOG = LoggerFactory.getLogger(StokerScanBuilder.class);
  private final SourceDataset dataset;
  private StructType required;

  StokerScanBuilder(SourceDataset dataset) {
    this.dataset = dataset;
    this.required = StokerTable.schemaOf(dataset);
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
      throw new UnsupportedOperationException(
          String.format(
              Locale.ROOT,
              "format(\"stoker\") "
                  + "read of %s: a filter over it (%s) would drop rows from batches already planned, "
                  + "leaving the ranks with unequal, partial batches (expected: no filter on a stoker "
                  + "read; filter the data before writing it, or read the files with "
                  + "spark.read().parquet(...), filter that and hand it to StokerSpark.on(...), which "
                  + "rebalances the rows across the ranks)",
              dataset.input(),
              String.join(" AND ", Arrays.stream(predicates).map(Predicate::toString).toList())));
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
  public boolean pushTableSample(
      double lowerBound, double upperBound, boolean withReplacement, long seed) {
    throw new UnsupportedOperationException(
        String.format(
            Locale.ROOT,
            "format(\"stoker\") read "
                + "of %s: a sample of it (fraction %s, %s replacement, seed %d) would drop rows from "
                + "batches already planned, leaving the ranks with unequal, partial batches (expected: "
                + "no sample of a stoker read; sample the data before writing it, or read the files with "
                + "spark.read().parquet(...), sample that and hand it to StokerSpark.on(...), which "
                + "rebalances the rows across the ranks)",
            dataset.input(),
            upperBound - lowerBound,
            withReplacement ? "with" : "without",
            seed));
  }

  @Override
  public Scan build() {
    SourceOptions options = dataset.options();
    LoaderOptions loader = options.loader();
    ParquetRead read = ParquetRead.of(dataset, required);
    ReadPlan plan =
        options.resumeFrom() == null
            ? read.plan(loader, options.worldSize(), options.epoch())
            : read.plan(
                loader, options.worldSize(), options.resumeFrom(), options.acceptChangedInput());
    ReadConfig config =
        read.config(
            loader,
            options.worldSize(),
            options.epoch(),
            options.shuffleBuffer(),
            options.verifyChecksums());
    StokerScan scan = new StokerScan(plan, config, read, options.resumeFrom());
    LOG.info("{}", scan.description());
    return scan;
  }
}
