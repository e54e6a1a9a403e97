package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.DType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.junit.jupiter.api.Test;

/** Spark column vectors read a batch column in place: numbers, lists and binaries. */
class SlotColumnVectorTest {
  /** A read-only direct buffer with 64 bytes of padding, then {@code values}. */
  private static ByteBuffer memory(float... values) {
    ByteBuffer buffer =
        ByteBuffer.allocateDirect(64 + values.length * 4).order(ByteOrder.nativeOrder());
    for (int i = 0; i < values.length; i++) {
      buffer.putFloat(64 + i * 4, values[i]);
    }
    return buffer.asReadOnlyBuffer().order(ByteOrder.nativeOrder());
  }

  @Test
  void shouldReadAListColumnAsArraysOverItsValues() {
    SlotColumnVector vector =
        new SlotColumnVector(
            DataTypes.createArrayType(DataTypes.FloatType, false), DType.FLOAT32, 3);
    vector.bind(memory(0, 1, 2, 10, 11, 12), 64);

    ColumnarArray second = vector.getArray(1);

    assertThat(second.numElements()).isEqualTo(3);
    assertThat(second.getFloat(2)).isEqualTo(12f);
    assertThat(second.toFloatArray()).containsExactly(10f, 11f, 12f);
    assertThat(vector.getChild(0).getFloats(1, 4)).containsExactly(1f, 2f, 10f, 11f);
    assertThat(vector.isNullAt(1)).isFalse();
    assertThat(vector.hasNull()).isFalse();
  }

  @Test
  void shouldReadNumbersOfEveryDtype() {
    ByteBuffer buffer = ByteBuffer.allocateDirect(128).order(ByteOrder.nativeOrder());
    buffer.putInt(0, 7).putInt(4, -8).putLong(64, 1L << 40).putLong(72, -3);
    ByteBuffer view = buffer.asReadOnlyBuffer().order(ByteOrder.nativeOrder());
    SlotColumnVector ints = new SlotColumnVector(DataTypes.IntegerType, DType.INT32, 1);
    SlotColumnVector longs = new SlotColumnVector(DataTypes.LongType, DType.INT64, 1);
    ints.bind(view, 0);
    longs.bind(view, 64);

    assertThat(ints.getInt(1)).isEqualTo(-8);
    assertThat(ints.getInts(0, 2)).containsExactly(7, -8);
    assertThat(longs.getLong(0)).isEqualTo(1L << 40);
    assertThat(longs.getLongs(0, 2)).containsExactly(1L << 40, -3);
  }

  @Test
  void shouldReadBinaryRowsOfTheirLength() {
    ByteBuffer buffer = ByteBuffer.allocateDirect(8);
    buffer.put(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}).clear();
    SlotColumnVector bytes = new SlotColumnVector(DataTypes.BinaryType, DType.UINT8, 4);
    bytes.bind(buffer.asReadOnlyBuffer(), 0);

    assertThat(bytes.getBinary(1)).containsExactly(5, 6, 7, 8);
  }

  @Test
  void shouldFollowTheBatchItIsBoundTo() {
    SlotColumnVector vector = new SlotColumnVector(DataTypes.FloatType, DType.FLOAT32, 1);
    vector.bind(memory(1, 2), 64);
    float before = vector.getFloats(0, 2)[1];

    vector.bind(memory(3, 4), 64);

    assertThat(before).isEqualTo(2f);
    assertThat(vector.getFloat(1)).isEqualTo(4f);
    assertThat(vector.getFloats(0, 2)).containsExactly(3f, 4f);
  }
}
