package dev.stoker.spark.run;

import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.spark.parquet.ParquetRead;
import dev.stoker.spark.parquet.SourceDataset;
import dev.stoker.spark.parquet.SourceOptions;
import dev.stoker.spark.source.ScanPlans;
import dev.stoker.spark.source.StokerScan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.Partition;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An input the ranks read straight from its Parquet files: a {@code format("stoker")} read or a
 * plain {@code spark.read.parquet} scan (at most a choice of columns over it: no filter, no
 * computed column), whose declared columns are stored as the dtypes they are declared with. Both
 * are planned by the one planner into exact row ranges per rank, which each rank streams into its
 * loader.
 *
 * @param read the declared columns of the files
 * @param readOptions the {@code format("stoker")} read's options; null for a plain Parquet scan
 */
public record PlannedInput(ParquetRead read, SourceOptions readOptions) {
  private static final Logger LOG = LoggerFactory.getLogger(PlannedInput.class);

  /**
   * The planned input of {@code input} for {@code fields}, or null when its rows must take the rows
   * path (the reason is logged).
   */
  public static PlannedInput of(Dataset<Row> input, List<Field> fields) {
    SparkPlan scan = ScanPlans.scanOf(input.queryExecution().executedPlan());
    if (scan instanceof BatchScanExec batch && batch.scan() instanceof StokerScan stoker) {
      SourceDataset dataset = stoker.read().dataset();
      return dataset.options().transforms() != null || dataset.options().tokens() != null
          ? transformed(dataset, fields)
          : declared(dataset, fields, dataset.options());
    }
    if (scan instanceof FileSourceScanExec files) {
      SourceDataset dataset = parquetFiles(input, files, fields);
      return dataset == null ? null : declared(dataset, fields, null);
    }
    return null;
  }

  /**
   * The options of the {@code format("stoker")} read that {@code input} is (at most a choice of its
   * columns), or null: they hold for a run over it whichever path its rows take.
   */
  public static SourceOptions stokerRead(Dataset<Row> input) {
    SparkPlan scan = ScanPlans.scanOf(input.queryExecution().executedPlan());
    return scan instanceof BatchScanExec batch && batch.scan() instanceof StokerScan stoker
        ? stoker.read().dataset().options()
        : null;
  }

  /**
   * A read with a transform (every readable column goes into it) or token rows (of its column of
   * documents): the run's fields must be the output, field for field.
   *
   * @throws IllegalArgumentException if they are not, naming both
   */
  private static PlannedInput transformed(SourceDataset dataset, List<Field> fields) {
    StructType required =
        new StructType(
            fields.stream()
                .map(f -> new StructField(f.name(), DataTypes.BinaryType, false, Metadata.empty()))
                .toArray(StructField[]::new));
    ParquetRead read = ParquetRead.of(dataset, required);
    Schema output = read.batchSchema();
    if (!output.fields().equals(fields)) {
      String writer =
          dataset.options().tokens() != null
              ? dataset.options().tokens().toString()
              : SourceOptions.TRANSFORMS + "='" + dataset.options().transforms() + "'";
      throw new IllegalArgumentException(
          String.format(
              "%s writes %s, but the run declares %s (expected: the run's fields exactly as "
                  + "it writes them, in its order)",
              writer, output.fields(), fields));
    }
    return new PlannedInput(read, dataset.options());
  }

  /** Whether this is a {@code format("stoker")} read (else a plain Parquet scan). */
  public boolean stokerRead() {
    return readOptions != null;
  }

  private static PlannedInput declared(
      SourceDataset dataset, List<Field> fields, SourceOptions options) {
    StringBuilder why = new StringBuilder();
    ParquetRead read = ParquetRead.declared(dataset, fields, why);
    if (read == null) {
      LOG.info("stoker: the ranks read {} through Spark's rows: {}", dataset.input(), why);
      return null;
    }
    return new PlannedInput(read, options);
  }

  /** The files of a plain Parquet scan, or null if the scan is more than that. */
  private static SourceDataset parquetFiles(
      Dataset<Row> input, FileSourceScanExec scan, List<Field> fields) {
    HadoopFsRelation relation = scan.relation();
    if (relation.fileFormat().getClass() != ParquetFileFormat.class) {
      if (relation.fileFormat() instanceof ParquetFileFormat) {
        // a table format's reader (Delta's) applies what the files alone do not say: deletes
        LOG.info(
            "stoker: the scan is a table's ({}), not plain Parquet files; the ranks read it "
                + "through Spark's rows (format(\"stoker\").option(\"tableFormat\", ...) plans "
                + "it from its files)",
            relation.fileFormat().getClass().getSimpleName());
      }
      return null;
    }
    Set<String> partitionColumns =
        new LinkedHashSet<>(Arrays.asList(relation.partitionSchema().fieldNames()));
    for (Field field : fields) {
      if (partitionColumns.contains(field.name())) {
        LOG.info(
            "stoker: column '{}' is a partition column of the Parquet scan; the ranks read "
                + "it through Spark's rows",
            field.name());
        return null;
      }
    }
    Set<String> paths = new LinkedHashSet<>();
    for (Partition partition : scan.inputRDD().partitions()) {
      if (!(partition instanceof FilePartition filePartition)) {
        return null;
      }
      for (PartitionedFile file : filePartition.files()) {
        paths.add(file.toPath().toString());
      }
    }
    if (paths.isEmpty()) {
      return null;
    }
    Configuration conf =
        input.sparkSession().sessionState().newHadoopConfWithOptions(relation.options());
    return SourceDataset.ofFiles(new ArrayList<>(paths), conf);
  }
}
