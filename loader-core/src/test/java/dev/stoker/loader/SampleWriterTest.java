package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SampleWriterTest {
  private static final Schema SCHEMA =
      Schema.of(
          Field.of("x", DType.FLOAT32, 3),
          Field.scalar("label", DType.INT64),
          Field.of("pixels", DType.UINT8, 5),
          Field.of("ids", DType.INT32, 2),
          Field.of("w", DType.FLOAT64, 2));
  private static final int X = 0;
  private static final int LABEL = 1;
  private static final int PIXELS = 2;
  private static final int IDS = 3;
  private static final int W = 4;

  private final BatchLayout layout = new BatchLayout(SCHEMA, 4);
  private HostMemory slot;
  private SampleWriter writer;

  @BeforeEach
  void openSlot() {
    slot = DirectAllocator.INSTANCE.allocate(layout.slotBytes());
    slot.zero(0, slot.size());
    writer = new SampleWriter(layout);
    writer.bind(slot, 2);
  }

  @AfterEach
  void closeSlot() {
    slot.close();
    assertThat(slot.isClosed()).as("slot freed").isTrue();
  }

  private ByteBuffer bytes() {
    return slot.bytes();
  }

  /** Asserts every byte of the slot outside [from, from + length) is still zero. */
  private void assertZeroOutside(int from, int length) {
    for (int i = 0; i < slot.size(); i++) {
      if (i < from || i >= from + length) {
        assertThat(bytes().get(i)).as("byte %d", i).isZero();
      }
    }
  }

  private void assertNothingWritten() {
    assertZeroOutside(0, 0);
  }

  @Test
  void shouldWriteEveryDTypeAtTheLayoutsRowOffset() {
    writer.putFloats(X, new float[] {9, 1.5f, 2.5f, 3.5f}, 1, 3);
    writer.putLong(LABEL, 0, 42L);
    writer.putBytes(PIXELS, 0, new byte[] {1, 2, (byte) 200, 4, 5}, 0, 5);
    writer.putInts(IDS, 0, new int[] {-3, 7}, 0, 2);
    writer.putDoubles(W, 0, new double[] {0.25, -8}, 0, 2);

    assertThat(bytes().getFloat(layout.rowOffset(X, 2))).isEqualTo(1.5f);
    assertThat(bytes().getFloat(layout.rowOffset(X, 2) + 8)).isEqualTo(3.5f);
    assertThat(bytes().getLong(layout.rowOffset(LABEL, 2))).isEqualTo(42L);
    assertThat(Byte.toUnsignedInt(bytes().get(layout.rowOffset(PIXELS, 2) + 2))).isEqualTo(200);
    assertThat(bytes().get(layout.rowOffset(PIXELS, 2) + 4)).isEqualTo((byte) 5);
    assertThat(bytes().getInt(layout.rowOffset(IDS, 2))).isEqualTo(-3);
    assertThat(bytes().getInt(layout.rowOffset(IDS, 2) + 4)).isEqualTo(7);
    assertThat(bytes().getDouble(layout.rowOffset(W, 2) + 8)).isEqualTo(-8.0);
    // nothing lands in rows 1 or 3
    assertThat(bytes().getFloat(layout.rowOffset(X, 1) + 8)).isZero();
    assertThat(bytes().getFloat(layout.rowOffset(X, 3))).isZero();
  }

  @Test
  void shouldWriteSingleValuesAtTheirElement() {
    writer.putFloat(X, 2, 7.25f);
    assertThat(writer.offset(X, 2)).isEqualTo(layout.rowOffset(X, 2) + 8);
    assertThat(bytes().getFloat(writer.offset(X, 2))).isEqualTo(7.25f);
    assertZeroOutside(writer.offset(X, 2), Float.BYTES);

    writer.putFloat(X, 2, 0f);
    writer.putInt(IDS, 1, 11);
    writer.putByte(PIXELS, 4, (byte) 9);
    writer.putDouble(W, 1, 2.5);
    assertThat(bytes().getInt(layout.rowOffset(IDS, 2) + 4)).isEqualTo(11);
    assertThat(bytes().get(layout.rowOffset(PIXELS, 2) + 4)).isEqualTo((byte) 9);
    assertThat(bytes().getDouble(layout.rowOffset(W, 2) + 8)).isEqualTo(2.5);
    assertThat(writer.row()).isEqualTo(2);
    assertThat(writer.schema()).isSameAs(SCHEMA);
  }

  @Test
  void shouldWriteThroughTheFloatViewAtByteOffsetOverFour() {
    writer.floats().put(writer.offset(X, 1) / Float.BYTES, 6.5f);
    assertThat(writer.bytes().getFloat(layout.rowOffset(X, 2) + 4)).isEqualTo(6.5f);
  }

  @Test
  void shouldNameTheFieldItsDTypeAndTheMethodWhenTheDTypeIsWrong() {
    assertThatThrownBy(() -> writer.putInts(X, 0, new int[3], 0, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "field 'x' is float32[3]: putInts writes int32 (expected: the put method of "
                + "its dtype)");
    assertThatThrownBy(() -> writer.putFloat(LABEL, 0, 1f))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "field 'label' is int64[]: putFloat writes float32 (expected: the put method "
                + "of its dtype)");
    assertThatThrownBy(() -> writer.putBytes(IDS, 0, new byte[2], 0, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("field 'ids' is int32[2]: putBytes writes uint8");
    assertNothingWritten();
  }

  @Test
  void shouldRefuseMoreValuesThanTheFieldHolds() {
    assertThatThrownBy(() -> writer.putFloats(X, new float[4], 0, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'x' row 2: 4 values at element 0 (expected: at most 3 = [3])");
    assertThatThrownBy(() -> writer.putFloats(X, 1, new float[3], 0, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'x' row 2: 3 values at element 1 (expected: at most 3 = [3])");
    assertThatThrownBy(() -> writer.putLong(LABEL, 1, 5L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'label' row 2: 1 values at element 1 (expected: at most 1 = [])");
    assertThatThrownBy(() -> writer.putInt(IDS, -1, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'ids' row 2: 1 values at element -1 (expected: at most 2 = [2])");
    assertNothingWritten();
  }

  @Test
  void shouldRefuseAnElementSoLargeThatItsOffsetWouldWrapAround() {
    // element + 1 overflows int; element * 4 wraps to -4: a write just before this row.
    assertThatThrownBy(() -> writer.putFloat(X, Integer.MAX_VALUE, 1f))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'x' row 2: 1 values at element 2147483647 (expected: at most 3 = [3])");
    assertThatThrownBy(() -> writer.putFloats(X, 1, new float[3], 0, Integer.MAX_VALUE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'x' row 2: 2147483647 values at element 1 (expected: at most 3 = [3])");
    assertNothingWritten();
  }

  @Test
  void shouldCopyARawRowFromABuffer() {
    ByteBuffer src = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
    src.putFloat(16, 1f).putFloat(20, 2f).putFloat(24, 3f);
    writer.copyRaw(X, src, 16);
    assertThat(bytes().getFloat(layout.rowOffset(X, 2))).isEqualTo(1f);
    assertThat(bytes().getFloat(layout.rowOffset(X, 2) + 8)).isEqualTo(3f);
    assertZeroOutside(layout.rowOffset(X, 2), 12);
    assertThat(src.position()).as("src position untouched").isZero();
  }

  @Test
  void shouldRefuseARawCopyOutsideTheSourceBuffer() {
    ByteBuffer src = ByteBuffer.allocateDirect(20).order(ByteOrder.nativeOrder());
    assertThatThrownBy(() -> writer.copyRaw(X, src, 9))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage("field 'x': copying 12 bytes from index 9 of a buffer of 20 bytes");
    assertThatThrownBy(() -> writer.copyRaw(X, src, -1))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage("field 'x': copying 12 bytes from index -1 of a buffer of 20 bytes");
    assertThatThrownBy(() -> writer.copyRaw(X, src, Integer.MAX_VALUE - 4))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage("field 'x': copying 12 bytes from index 2147483643 of a buffer of 20 bytes");
    writer.copyRaw(X, src, 8); // the last 12 bytes fit exactly
    assertNothingWritten();
  }

  @Test
  void shouldWriteTheRowItIsBoundTo() {
    writer.bind(slot, 0);
    writer.putLong(LABEL, 0, 100L);
    writer.bind(slot, 3);
    writer.putLong(LABEL, 0, 103L);
    assertThat(bytes().getLong(layout.rowOffset(LABEL, 0))).isEqualTo(100L);
    assertThat(bytes().getLong(layout.rowOffset(LABEL, 3))).isEqualTo(103L);
    assertThat(bytes().getLong(layout.rowOffset(LABEL, 2))).isZero();
  }
}
