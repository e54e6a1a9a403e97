package dev.stoker.spark.parquet;

import dev.stoker.loader.LoaderConfig;
import dev.stoker.loader.SampleTransform;
import dev.stoker.loader.Schema;
import dev.stoker.loader.tokens.TokenLayout;
import dev.stoker.loader.transform.Transforms;
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
 * @param transforms the {@code transforms} spec every rank's loader runs on its samples, or null;
 *     sent as text and made on each executor
 * @param delivered with a transform, the columns a {@code format("stoker")} read yields (of the
 *     transform's output, in Spark's order), or with token rows of theirs; else null
 * @param tokens the token rows every rank makes of its documents (the one column read), or null
 * @param names where the files keep the columns (a table's column mapping), or null: by name
 */
public record ReadConfig(
    LoaderConfig loader,
    int epoch,
    StructType schema,
    List<ColumnSpec> columns,
    int windowRows,
    int readerRows,
    HadoopConf hadoop,
    boolean verifyChecksums,
    String transforms,
    StructType delivered,
    TokenLayout tokens,
    ColumnNames names)
    implements Serializable {

  public ReadConfig {
    names = names == null ? ColumnNames.BY_NAME : names;
  }

  /** A read of columns stored under their names. */
  public ReadConfig(
      LoaderConfig loader,
      int epoch,
      StructType schema,
      List<ColumnSpec> columns,
      int windowRows,
      int readerRows,
      HadoopConf hadoop,
      boolean verifyChecksums,
      String transforms,
      StructType delivered,
      TokenLayout tokens) {
    this(
        loader,
        epoch,
        schema,
        columns,
        windowRows,
        readerRows,
        hadoop,
        verifyChecksums,
        transforms,
        delivered,
        tokens,
        null);
  }

  /** A read with a transform, or without one. */
  public ReadConfig(
      LoaderConfig loader,
      int epoch,
      StructType schema,
      List<ColumnSpec> columns,
      int windowRows,
      int readerRows,
      HadoopConf hadoop,
      boolean verifyChecksums,
      String transforms,
      StructType delivered) {
    this(
        loader,
        epoch,
        schema,
        columns,
        windowRows,
        readerRows,
        hadoop,
        verifyChecksums,
        transforms,
        delivered,
        null);
  }

  /** A read without a transform. */
  public ReadConfig(
      LoaderConfig loader,
      int epoch,
      StructType schema,
      List<ColumnSpec> columns,
      int windowRows,
      int readerRows,
      HadoopConf hadoop,
      boolean verifyChecksums) {
    this(
        loader,
        epoch,
        schema,
        columns,
        windowRows,
        readerRows,
        hadoop,
        verifyChecksums,
        null,
        null);
  }

  /** The transform the spec describes, made anew; null without one. */
  public SampleTransform transform() {
    return transforms == null ? null : Transforms.parse(transforms);
  }

  /**
   * The schema of the batches: the transform's output, the token rows', else {@link
   * #loaderSchema()}.
   */
  public Schema batchSchema() {
    if (tokens != null) {
      return tokens.outputSchema(tokens.idType(columns.get(0).dtype()));
    }
    return transforms == null ? loaderSchema() : transform().outputSchema(loaderSchema());
  }

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
