package dev.stoker.spark.run;

import dev.stoker.loader.Field;
import dev.stoker.spark.parquet.HadoopConf;
import dev.stoker.spark.parquet.SplitDecoder;
import dev.stoker.spark.parquet.SplitDecoder.Split;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.Partition;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An input that is a plain scan of Parquet files (no filter, no computed column, the declared
 * columns stored as the dtypes they are declared with, PLAIN or dictionary pages): its ranks read
 * their partitions' file splits with Stoker's page decoder straight into the shard, skipping
 * Spark's reader and its row or vector assembly. The splits are the scan's own, so a rank reads
 * exactly the rows its partition holds.
 */
public final class ParquetInput implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ParquetInput.class);

  private final List<List<Split>> partitions;
  private final HadoopConf conf;
  private final boolean verifyChecksums;

  private ParquetInput(List<List<Split>> partitions, HadoopConf conf, boolean verifyChecksums) {
    this.partitions = partitions;
    this.conf = conf;
    this.verifyChecksums = verifyChecksums;
  }

  /** As {@link #of(Dataset, List, boolean)}, page checksums verified. */
  static ParquetInput of(Dataset<Row> input, List<Field> fields) {
    return of(input, fields, true);
  }

  /**
   * The splits of {@code input}'s partitions when Stoker can decode them, else null; page
   * checksums are to be verified where the files have them if {@code verifyChecksums}.
   */
  static ParquetInput of(Dataset<Row> input, List<Field> fields, boolean verifyChecksums) {
    FileSourceScanExec scan = scan(input.queryExecution().executedPlan());
    if (scan == null) {
      return null;
    }
    HadoopFsRelation relation = scan.relation();
    if (!(relation.fileFormat() instanceof ParquetFileFormat)) {
      return null;
    }
    Set<String> partitionColumns = new LinkedHashSet<>(
        Arrays.asList(relation.partitionSchema().fieldNames()));
    for (Field field : fields) {
      if (partitionColumns.contains(field.name())) {
        return null;
      }
    }
    List<List<Split>> partitions = new ArrayList<>();
    Set<String> files = new LinkedHashSet<>();
    for (Partition partition : scan.inputRDD().partitions()) {
      if (!(partition instanceof FilePartition filePartition)) {
        return null;
      }
      List<Split> splits = new ArrayList<>();
      for (PartitionedFile file : filePartition.files()) {
        String path = file.toPath().toString();
        splits.add(new Split(path, file.start(), file.length()));
        files.add(path);
      }
      partitions.add(List.copyOf(splits));
    }
    Configuration conf = input.sparkSession().sessionState()
        .newHadoopConfWithOptions(relation.options());
    try {
      String why = SplitDecoder.whyNot(List.copyOf(files), fields, conf);
      if (why != null) {
        LOG.info("reading the Parquet scan through Spark's reader: {}", why);
        return null;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the Parquet footers of the input failed", e);
    }
    return new ParquetInput(List.copyOf(partitions), new HadoopConf(conf), verifyChecksums);
  }

  private static FileSourceScanExec scan(SparkPlan plan) {
    if (plan instanceof WholeStageCodegenExec codegen) {
      plan = codegen.child();
    }
    if (!(plan instanceof ColumnarToRowExec transition)) {
      return null;
    }
    SparkPlan child = transition.child();
    if (child instanceof InputAdapter adapter) {
      child = adapter.child();
    }
    return child instanceof FileSourceScanExec scan ? scan : null;
  }

  /** The splits of partition {@code partition}. */
  List<Split> splits(int partition) {
    return partitions.get(partition);
  }

  Configuration conf() {
    return conf.get();
  }

  /** Whether page checksums are verified where the files have them. */
  boolean verifyChecksums() {
    return verifyChecksums;
  }
}
