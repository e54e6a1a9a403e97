package dev.stoker.spark.parquet;

import dev.stoker.loader.LoaderConfig;
import dev.stoker.loader.Schema;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.StructType;

/**
 * What every rank of a scan reads with, sent to the executors once: the loader's options (rank 0
 * standing for every rank), the epoch, the columns, the shuffle buffer's and the Parquet reader's
 * rows, and the Hadoop configuration.
 *
 * @param schema the columns as Spark sees them, in {@code columns}' order
 * @param windowRows rows of the shuffle buffer (or, without shuffle, of the staging buffer)
 * @param readerRows rows per batch of Spark's Parquet reader
 * @param verifyChecksums whether page checksums are verified where the files have them
 */
public record ReadConfig(
    LoaderConfig loader,
    int epoch,
    StructType schema,
    List<ColumnSpec> columns,
    int windowRows,
    int readerRows,
    HadoopConf hadoop,
    boolean verifyChecksums)
    implements Serializable {

  /** The loader's schema: one field per column. */
  public Schema loaderSchema() {
    List<dev.stoker.loader.Field> fields = new ArrayList<>();
    for (ColumnSpec column : columns) {
      fields.add(column.field());
    }
    return Schema.of(fields);
  }

  /** Bytes of one row over every column. */
  public long rowBytes() {
    long bytes = 0;
    for (ColumnSpec column : columns) {
      bytes += column.rowBytes();
    }
    return bytes;
  }
}
