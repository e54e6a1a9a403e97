package dev.stoker.spark.source;

import dev.stoker.loader.Batch;
import dev.stoker.spark.parquet.ColumnSpec;
import java.nio.ByteBuffer;
import java.util.List;
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

  SlotBatch(List<ColumnSpec> columns, StructType schema) {
    vectors = new SlotColumnVector[columns.size()];
    for (int c = 0; c < vectors.length; c++) {
      ColumnSpec column = columns.get(c);
      vectors[c] =
          new SlotColumnVector(schema.fields()[c].dataType(), column.dtype(), column.elements());
    }
    columnar = new ColumnarBatch(vectors.clone());
  }

  /** The columnar batch over {@code batch}, valid as long as {@code batch} is. */
  ColumnarBatch bind(Batch batch) {
    ByteBuffer memory = batch.buffer();
    for (int c = 0; c < vectors.length; c++) {
      vectors[c].bind(memory, batch.layout().columnOffset(c));
    }
    columnar.setNumRows(batch.size());
    return columnar;
  }

  /** A batch of {@code rows} rows and no columns, for a read that selects none (a count). */
  static ColumnarBatch empty(int rows) {
    return new ColumnarBatch(new ColumnVector[0], rows);
  }
}
