package dev.stoker.spark.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.spark.shard.ShardBlock;
import dev.stoker.spark.shard.ShardLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Columnar batches, as Spark's vectorized readers fill them (on or off heap, values in one child
 * vector, in order or not), into blocks: runs of rows in bulk, checked row by row.
 */
class BatchCopyTest {
  private static final StructType INPUT =
      new StructType()
          .add("x", DataTypes.createArrayType(DataTypes.FloatType, true))
          .add("px", DataTypes.BinaryType)
          .add("label", DataTypes.LongType);
  private static final ShardLayout LAYOUT =
      new ShardLayout(
          Schema.of(
              Field.of("x", DType.FLOAT32, 3),
              Field.of("px", DType.UINT8, 2),
              Field.scalar("label", DType.INT32)));
  private static final RowCopier COPIER = InputColumns.bind(LAYOUT, INPUT);

  private ColumnarBatch batch;

  @AfterEach
  void close() {
    batch.close();
  }

  private static WritableColumnVector vector(
      boolean offHeap, int capacity, org.apache.spark.sql.types.DataType type) {
    return offHeap
        ? new OffHeapColumnVector(capacity, type)
        : new OnHeapColumnVector(capacity, type);
  }

  /**
   * Rows whose x values are {@code 10 * row + e}; with {@code reversed} the arrays lie in the child
   * vector in reverse order, so that no run of rows is contiguous.
   */
  private ColumnarBatch rows(boolean offHeap, boolean reversed, int rows) {
    WritableColumnVector x = vector(offHeap, rows, INPUT.fields()[0].dataType());
    WritableColumnVector px = vector(offHeap, rows, DataTypes.BinaryType);
    WritableColumnVector label = vector(offHeap, rows, DataTypes.LongType);
    x.arrayData().reserve(rows * 3);
    for (int r = 0; r < rows; r++) {
      int at = (reversed ? rows - 1 - r : r) * 3;
      x.putArray(r, at, 3);
      for (int e = 0; e < 3; e++) {
        x.arrayData().putFloat(at + e, 10 * r + e);
      }
      px.putByteArray(r, new byte[] {(byte) r, (byte) (200 + r)});
      label.putLong(r, r);
    }
    batch = new ColumnarBatch(new ColumnVector[] {x, px, label}, rows);
    return batch;
  }

  @ParameterizedTest(name = "offHeap={0} reversed={1}")
  @CsvSource({"false,false", "true,false", "false,true", "true,true"})
  void shouldCopyRunsOfRowsFromBatchesRawInNativeOrder(boolean offHeap, boolean reversed) {
    rows(offHeap, reversed, 5);
    ShardBlock block = ShardBlock.allocate(LAYOUT, 0, 5);
    InputCursor cursor = COPIER.cursor(List.of(batch).iterator(), 2);
    assertThat(cursor.available()).isEqualTo(5);
    cursor.copyTo(block, 2);
    cursor.copyTo(block, 3);
    assertThat(cursor.available()).isZero();
    assertThat(cursor.index()).isEqualTo(5);
    ByteBuffer x = ByteBuffer.wrap(block.column(0)).order(ByteOrder.nativeOrder());
    for (int r = 0; r < 5; r++) {
      for (int e = 0; e < 3; e++) {
        assertThat(x.getFloat((r * 3 + e) * 4)).isEqualTo(10 * r + e);
      }
    }
    assertThat(block.column(1)).containsExactly(0, -56, 1, -55, 2, -54, 3, -53, 4, -52);
    ByteBuffer label = ByteBuffer.wrap(block.column(2)).order(ByteOrder.nativeOrder());
    assertThat(label.getInt(16)).isEqualTo(4);
  }

  @ParameterizedTest(name = "offHeap={0}")
  @CsvSource({"false", "true"})
  void shouldNameTheRowOfABadValueInABatch(boolean offHeap) {
    rows(offHeap, false, 4);
    WritableColumnVector x = (WritableColumnVector) batch.column(0);
    x.putArray(2, 6, 2);
    assertThatThrownBy(() -> copyAll(7))
        .isInstanceOf(BadRowException.class)
        .hasMessage("column 'x' row 9 of partition 1: 2 values (expected: 3 = [3])");
    x.putArray(2, 6, 3);
    x.arrayData().putNull(7);
    assertThatThrownBy(() -> copyAll(7))
        .hasMessage(
            "column 'x' row 9 of partition 1: null at element 1 (expected: "
                + "float32[3] without nulls; fill them first, e.g. with transform(col, x -> "
                + "coalesce(x, 0)))");
    x.putNull(3);
    ((WritableColumnVector) batch.column(1)).putByteArray(1, new byte[3]);
    assertThatThrownBy(() -> copyAll(7))
        .hasMessage(
            "column 'x' row 10 of partition 1: null (expected: float32[3]; drop or fill "
                + "the nulls first, e.g. df.na().drop())");
    ((WritableColumnVector) batch.column(2)).putLong(0, 1L << 40);
    assertThatThrownBy(() -> COPIER.copy(batch, 0, 1, ShardBlock.allocate(LAYOUT, 0, 1), 1, 7))
        .hasMessage(
            "column 'label' row 7 of partition 1: 1099511627776 (expected: int32, "
                + "-2147483648..2147483647)");
  }

  private void copyAll(long firstIndex) {
    ShardBlock block = ShardBlock.allocate(LAYOUT, 0, 4);
    COPIER.copy(batch, 0, 4, block, 1, firstIndex);
  }

  @ParameterizedTest(name = "offHeap={0}")
  @CsvSource({"false", "true"})
  void shouldReadRowsAndBatchesFromOnePartitionAlike(boolean offHeap) {
    rows(offHeap, false, 3);
    Iterator<Object> input = List.<Object>of(batch, batch.getRow(1).copy()).iterator();
    InputCursor cursor = COPIER.cursor(input, 0);
    ShardBlock block = ShardBlock.allocate(LAYOUT, 0, 4);
    cursor.copyTo(block, cursor.available());
    assertThat(cursor.available()).isEqualTo(1);
    cursor.copyTo(block, 1);
    assertThat(cursor.index()).isEqualTo(4);
    ByteBuffer x = ByteBuffer.wrap(block.column(0)).order(ByteOrder.nativeOrder());
    assertThat(x.getFloat(3 * 12 + 8)).isEqualTo(12f);
  }
}
