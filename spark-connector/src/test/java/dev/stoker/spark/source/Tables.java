package dev.stoker.spark.source;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Test data written by Spark, and what tests look at in a read's plan. */
final class Tables {
  /** Bytes per row group when writing: a few dozen rows of {@link #images}. */
  static final String ROW_GROUP_BYTES = "4096";

  private Tables() {}

  /**
   * {@code rows} rows in {@code files} files, ids in file order: {@code id} (long), {@code label}
   * (int, id % 10), {@code image} (8 floats, id * 8 + i), {@code pixels} (4 bytes, id + i), {@code
   * weight} (double, id / 2), {@code levels} (3 doubles, (id + i) % 3), {@code mask} (2 bytes, 0,1
   * for even ids and 1,0 for odd ones) and {@code name} (a string), in row groups of a few dozen
   * rows. label, levels and mask are dictionary-encoded.
   */
  static Path images(SparkSession spark, Path dir, long rows, int files) {
    images(spark, dir.toString(), rows, files);
    return dir;
  }

  /** {@link #images(SparkSession, Path, long, int)} at a path of any Hadoop file system. */
  static void images(SparkSession spark, String path, long rows, int files) {
    write(imageRows(spark, rows, files), path, ROW_GROUP_BYTES);
  }

  /** The rows of {@link #images(SparkSession, Path, long, int)}. */
  static Dataset<Row> imageRows(SparkSession spark, long rows, int files) {
    return spark
        .range(0, rows, 1, files)
        .selectExpr(
            "id",
            "cast(id % 10 as int) as label",
            "transform(sequence(0, 7), i -> cast(id * 8 + i as float)) as image",
            "unhex(concat_ws('', transform(sequence(0, 3), i -> lpad(hex((id + i) % 256), 2, '0'))))"
                + " as pixels",
            "cast(id as double) / 2 as weight",
            "transform(sequence(0, 2), i -> cast((id + i) % 3 as double)) as levels",
            "unhex(if(id % 2 = 0, '0001', '0100')) as mask",
            "concat('row', id) as name");
  }

  /** Writes {@code data} as Parquet in small row groups, one file per partition. */
  static Path write(Dataset<Row> data, Path dir) {
    return write(data, dir, ROW_GROUP_BYTES);
  }

  /** Writes {@code data} as Parquet in row groups of about {@code rowGroupBytes}. */
  static Path write(Dataset<Row> data, Path dir, String rowGroupBytes) {
    write(data, dir.toString(), rowGroupBytes);
    return dir;
  }

  private static void write(Dataset<Row> data, String path, String rowGroupBytes) {
    data.write()
        .mode("overwrite")
        .option("parquet.block.size", rowGroupBytes)
        .option("parquet.page.size.row.check.min", "10")
        .parquet(path);
  }

  /** The scan node of a read that ran (or is planned). */
  static BatchScanExec scanNode(Dataset<Row> df) {
    BatchScanExec scan = find(df.queryExecution().executedPlan());
    if (scan == null) {
      throw new AssertionError("no BatchScanExec in " + df.queryExecution().executedPlan());
    }
    return scan;
  }

  private static BatchScanExec find(SparkPlan plan) {
    if (plan instanceof BatchScanExec scan) {
      return scan;
    }
    scala.collection.Seq<SparkPlan> children = plan.children();
    for (int i = 0; i < children.size(); i++) {
      BatchScanExec found = find(children.apply(i));
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  static StokerScan scan(Dataset<Row> df) {
    return (StokerScan) scanNode(df).scan();
  }

  /** The sizes of the columnar batches every partition yields, partition by partition. */
  static List<List<Integer>> batchSizes(Dataset<Row> df) {
    JavaRDD<ColumnarBatch> batches = scanNode(df).executeColumnar().toJavaRDD();
    List<List<Integer>> sizes = new ArrayList<>();
    for (int p = 0; p < batches.getNumPartitions(); p++) {
      sizes.add(new ArrayList<>());
    }
    for (int[] pair :
        batches
            .mapPartitionsWithIndex(
                (index, it) -> {
                  List<int[]> out = new ArrayList<>();
                  while (it.hasNext()) {
                    out.add(new int[] {index, it.next().numRows()});
                  }
                  return out.iterator();
                },
                true)
            .collect()) {
      sizes.get(pair[0]).add(pair[1]);
    }
    return sizes;
  }

  /** The long column {@code column} of every partition, in order. */
  static List<List<Long>> idsByRank(Dataset<Row> df, String column) {
    List<List<Long>> ranks = new ArrayList<>();
    for (Row row : df.selectExpr("spark_partition_id() as rank", column).collectAsList()) {
      while (ranks.size() <= row.getInt(0)) {
        ranks.add(new ArrayList<>());
      }
      ranks.get(row.getInt(0)).add(row.getLong(1));
    }
    return ranks;
  }
}
