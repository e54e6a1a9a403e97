package dev.stoker.spark.source;

import dev.stoker.loader.Batch;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.spark.parquet.ColumnSpec;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The Spark {@link ColumnarBatch} a rank hands out, rebound to every loader batch: one {@link
 * SlotColumnVector} per column over the batch's slot, its row count the batch's size.
 */
final class SlotBatch {
  private final SlotColumnVector[] vectors;
  private final ColumnarBatch columnar;

  /** Which batch column each vector reads. */
  private final int[] fields;

  SlotBatch(List<ColumnSpec> columns, StructType schema) {
    vectors = new SlotColumnVector[columns.size()];
    fields = new int[vectors.length];
    for (int c = 0; c < vectors.length; c++) {
      ColumnSpec column = columns.get(c);
      vectors[c] =
          new SlotColumnVector(schema.fields()[c].dataType(), column.dtype(), column.elements());
      fields[c] = c;
    }
    columnar = new ColumnarBatch(vectors.clone());
  }

  private SlotBatch(Schema batch, StructType delivered) {
    vectors = new SlotColumnVector[delivered.fields().length];
    fields = new int[vectors.length];
    for (int c = 0; c < vectors.length; c++) {
      StructField column = delivered.fields()[c];
      fields[c] = batch.indexOf(column.name());
      Field field = batch.field(fields[c]);
      vectors[c] = new SlotColumnVector(column.dataType(), field.dtype(), field.elements());
    }
    columnar = new ColumnarBatch(vectors.clone());
  }

  /** Vectors over the columns {@code delivered} names of batches of schema {@code batch}. */
  static SlotBatch of(Schema batch, StructType delivered) {
    return new SlotBatch(batch, delivered);
  }

  /** The columnar batch over {@code batch}, valid as long as {@code batch} is. */
  ColumnarBatch bind(Batch batch) {
    ByteBuffer memory = batch.buffer();
    for (int c = 0; c < vectors.length; c++) {
      vectors[c].bind(memory, batch.layout().columnOffset(fields[c]));
    }
    columnar.setNumRows(batch.size());
    return columnar;
  }

  /** A batch of {@code rows} rows and no columns, for a read that selects none (a count). */
  static ColumnarBatch empty(int rows) {
    return new ColumnarBatch(new ColumnVector[0], rows);
  }
}
