package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a chunk may write into a {@link ColumnTarget}, and what it may not. */
@Timeout(10)
class StreamedColumnTargetTest {
  private static final Field FLOATS = Field.of("image", DType.FLOAT32, 2, 3);
  private static final Field DOUBLES = Field.of("weights", DType.FLOAT64, 2);
  private static final Field INTS = Field.of("ids", DType.INT32, 3);
  private static final Field LONGS = Field.scalar("label", DType.INT64);
  private static final Field BYTES = Field.of("pixels", DType.UINT8, 5);

  /** Where the target's rows start in the slot: a column offset, as the loader binds them. */
  private static final int AT = 64;

  private DirectAllocator allocator;
  private HostMemory slot;
  private final ColumnTarget target = new ColumnTarget();

  @BeforeEach
  void allocate() {
    allocator = new DirectAllocator("column-target-test", 1 << 16);
    slot = allocator.allocate(4096);
  }

  @AfterEach
  void release() {
    slot.close();
    allocator.close(); // fails if a block is still open
  }

  @Test
  void shouldDescribeTheRunToWrite() {
    target.bind(slot, FLOATS, AT, 4);

    assertThat(target.field()).isEqualTo(FLOATS);
    assertThat(target.rows()).isEqualTo(4);
    assertThat(target.rowBytes()).isEqualTo(24);
    assertThat(target.bytes()).isEqualTo(96);
    assertThat(target.remaining()).isEqualTo(96);
    target.putFloats(new float[6], 0, 6);
    assertThat(target.remaining()).isEqualTo(72);
  }

  @Test
  void shouldWriteFloatsInBulkAndOneByOne() {
    target.bind(slot, FLOATS, AT, 2);

    target.putFloats(new float[] {9, 1, 2, 3, 4, 9}, 1, 4);
    target.putFloat(5);
    target.putFloat(6);
    target.putFloats(new float[] {7, 8, 9, 10, 11, 12}, 0, 6);

    assertThat(target.remaining()).isZero();
    for (int i = 0; i < 12; i++) {
      assertThat(slot.bytes().getFloat(AT + i * 4)).isEqualTo(i + 1f);
    }
  }

  @Test
  void shouldWriteDoubles() {
    target.bind(slot, DOUBLES, AT, 2);

    target.putDoubles(new double[] {0.5, 1.5, 2.5}, 0, 3);
    target.putDouble(3.5);

    assertThat(target.remaining()).isZero();
    assertThat(slot.bytes().getDouble(AT)).isEqualTo(0.5);
    assertThat(slot.bytes().getDouble(AT + 24)).isEqualTo(3.5);
  }

  @Test
  void shouldWriteInts() {
    target.bind(slot, INTS, AT, 1);

    target.putInts(new int[] {-1, 7}, 0, 2);
    target.putInt(Integer.MAX_VALUE);

    assertThat(target.remaining()).isZero();
    assertThat(slot.bytes().getInt(AT)).isEqualTo(-1);
    assertThat(slot.bytes().getInt(AT + 4)).isEqualTo(7);
    assertThat(slot.bytes().getInt(AT + 8)).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void shouldWriteLongs() {
    target.bind(slot, LONGS, AT, 3);

    target.putLong(Long.MIN_VALUE);
    target.putLongs(new long[] {1, 2, 3}, 1, 2);

    assertThat(target.remaining()).isZero();
    assertThat(slot.bytes().getLong(AT)).isEqualTo(Long.MIN_VALUE);
    assertThat(slot.bytes().getLong(AT + 8)).isEqualTo(2);
    assertThat(slot.bytes().getLong(AT + 16)).isEqualTo(3);
  }

  @Test
  void shouldWriteUnsignedBytes() {
    target.bind(slot, BYTES, AT, 2);

    target.putBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, 0, 9);
    target.putByte((byte) 255);

    assertThat(target.remaining()).isZero();
    assertThat(slot.bytes().get(AT + 8)).isEqualTo((byte) 9);
    assertThat(Byte.toUnsignedInt(slot.bytes().get(AT + 9))).isEqualTo(255);
  }

  @Test
  void shouldCopyRawBytesOfAnyDtypeFromAnyIndex() {
    ByteBuffer source = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
    source.putLong(8, 11).putLong(16, 12).putLong(24, 13);
    source.position(30); // absolute access: the position does not matter
    target.bind(slot, LONGS, AT, 3);

    target.put(source, 8, 24);

    assertThat(target.remaining()).isZero();
    assertThat(slot.bytes().getLong(AT + 16)).isEqualTo(13);
    assertThat(source.position()).as("the source's position").isEqualTo(30);
  }

  @Test
  void shouldWriteTypedValuesAfterRawBytesThatEndOffTheValueGrid() {
    ByteBuffer source = ByteBuffer.allocate(6).order(ByteOrder.nativeOrder());
    source.putFloat(0, 1f).put(4, (byte) 0x11).put(5, (byte) 0x22);
    target.bind(slot, INTS, AT, 2); // 24 bytes: 6 raw, then four ints, then 2 raw

    target.put(source, 0, 6);
    target.putInts(new int[] {20, 21, 22, 23, 24}, 1, 3);
    target.putInt(24);
    target.put(source, 4, 2);

    assertThat(target.remaining()).isZero();
    assertThat(slot.bytes().getFloat(AT)).isEqualTo(1f);
    for (int i = 0; i < 4; i++) {
      assertThat(slot.bytes().getInt(AT + 6 + 4 * i)).as("int %d", i).isEqualTo(21 + i);
    }
    assertThat(slot.bytes().get(AT + 23)).isEqualTo((byte) 0x22);
  }

  @Test
  void shouldRefuseValuesOfAnotherDtypeFromEveryTypedPut() {
    target.bind(slot, LONGS, AT, 4);
    String refused =
        "field 'label' is int64[]: a chunk wrote %s values (expected: the field's " + "dtype)";

    assertThatThrownBy(() -> target.putFloats(new float[2], 0, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(refused, "float32");
    assertThatThrownBy(() -> target.putFloat(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(refused, "float32");
    assertThatThrownBy(() -> target.putDoubles(new double[1], 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(refused, "float64");
    assertThatThrownBy(() -> target.putDouble(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(refused, "float64");
    assertThatThrownBy(() -> target.putInts(new int[2], 0, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(refused, "int32");
    assertThatThrownBy(() -> target.putInt(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(refused, "int32");
    assertThatThrownBy(() -> target.putBytes(new byte[8], 0, 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(refused, "uint8");
    assertThatThrownBy(() -> target.putByte((byte) 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(refused, "uint8");
    target.bind(slot, BYTES, AT, 4);
    assertThatThrownBy(() -> target.putLongs(new long[1], 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "field 'pixels' is uint8[5]: a chunk wrote int64 values (expected: the "
                + "field's dtype)");
    assertThatThrownBy(() -> target.putLong(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wrote int64 values");
    assertThat(target.remaining()).as("nothing refused was counted").isEqualTo(20);
  }

  @Test
  void shouldRefuseToWritePastTheRunOfRowsFromEveryPut() {
    String tooMuch =
        "field '%s': a chunk wrote %d more bytes with %d of %d left for %d rows "
            + "(expected: exactly %d bytes per row)";
    target.bind(slot, FLOATS, AT, 1);
    target.putFloats(new float[4], 0, 4);

    assertThatThrownBy(() -> target.putFloats(new float[3], 0, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(tooMuch, "image", 12, 8, 24, 1, 24);
    target.putFloat(1);
    target.putFloat(2);
    assertThatThrownBy(() -> target.putFloat(3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(tooMuch, "image", 4, 0, 24, 1, 24);
    assertThatThrownBy(() -> target.put(ByteBuffer.allocate(8), 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(tooMuch, "image", 1, 0, 24, 1, 24);

    target.bind(slot, DOUBLES, AT, 1);
    assertThatThrownBy(() -> target.putDoubles(new double[3], 0, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wrote 24 more bytes");
    target.bind(slot, INTS, AT, 1);
    assertThatThrownBy(() -> target.putInts(new int[4], 0, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wrote 16 more bytes");
    target.bind(slot, LONGS, AT, 1);
    target.putLong(1);
    assertThatThrownBy(() -> target.putLongs(new long[1], 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wrote 8 more bytes");
    target.bind(slot, BYTES, AT, 1);
    assertThatThrownBy(() -> target.putBytes(new byte[6], 0, 6))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wrote 6 more bytes");
    target.putBytes(new byte[5], 0, 5);
    assertThatThrownBy(() -> target.putByte((byte) 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wrote 1 more bytes");
  }

  @Test
  void shouldNotTouchTheSlotOutsideTheRun() {
    slot.zero(0, slot.size());
    target.bind(slot, BYTES, AT, 2);

    target.putBytes(filled(10, (byte) -1), 0, 10);
    assertThatThrownBy(() -> target.putByte((byte) -1))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(slot.bytes().get(AT - 1)).isZero();
    assertThat(slot.bytes().get(AT + 10)).isZero();
  }

  @Test
  void shouldRefuseANegativeLength() {
    target.bind(slot, FLOATS, AT, 1);

    assertThatThrownBy(() -> target.put(ByteBuffer.allocate(8), 0, -4))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> target.putFloats(new float[2], 0, -1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(target.remaining()).isEqualTo(24);
  }

  @Test
  void shouldCheckTheSourceBoundsBeforeCountingTheBytes() {
    target.bind(slot, INTS, AT, 1);

    assertThatThrownBy(() -> target.putInts(new int[2], 0, 3))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> target.putInts(new int[3], 1, 3))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> target.put(ByteBuffer.allocate(8), 4, 8))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> target.put(ByteBuffer.allocate(16).limit(8), 0, 12))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(target.remaining()).isEqualTo(12);
    target.putInts(new int[] {1, 2, 3}, 0, 3);
    assertThat(target.remaining()).isZero();
  }

  @Test
  void shouldRefuseWritesOnceTheCopyIsOver() {
    target.bind(slot, INTS, AT, 1);
    target.unbind();

    assertThatThrownBy(() -> target.putInt(1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a ColumnTarget is written only inside ColumnChunk.copyTo (field 'ids')");
  }

  @Test
  void shouldCopyARunOfRowsOfABufferChunk() throws Exception {
    ByteBuffer labels = ByteBuffer.allocate(5 * 8).order(ByteOrder.nativeOrder());
    for (int i = 0; i < 5; i++) {
      labels.putLong(i * 8, 100 + i);
    }
    ColumnChunk chunk = ColumnChunk.ofBuffers(5, ByteBuffer.allocate(5 * 24), labels);
    target.bind(slot, LONGS, AT, 3);

    assertThat(chunk.rows()).isEqualTo(5);
    chunk.copyTo(1, 2, target);
    assertThat(target.remaining()).isZero();
    assertThat(slot.bytes().getLong(AT)).isEqualTo(102);
    assertThat(slot.bytes().getLong(AT + 16)).isEqualTo(104);
  }

  @Test
  void shouldRefuseARunOfRowsABufferChunkDoesNotHave() {
    ColumnChunk chunk = ColumnChunk.ofBuffers(5, ByteBuffer.allocate(40), ByteBuffer.allocate(32));

    target.bind(slot, LONGS, AT, 3);
    assertThatThrownBy(() -> chunk.copyTo(0, 3, target))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage(
            "field 'label': rows 3..5 of a chunk of 5 rows whose column has 40 bytes "
                + "(expected: 8 bytes per row)");
    assertThatThrownBy(() -> chunk.copyTo(0, -1, target))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("rows -1..1 of a chunk of 5 rows");
    assertThatThrownBy(() -> chunk.copyTo(1, 2, target))
        .as("a column with fewer rows than the chunk")
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage(
            "field 'label': rows 2..4 of a chunk of 5 rows whose column has 32 bytes "
                + "(expected: 8 bytes per row)");
    assertThatThrownBy(() -> chunk.copyTo(2, 0, target))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "field 'label' (index 2): the chunk has 2 column(s) (expected: one per " + "field)");
    assertThat(target.remaining()).isEqualTo(24);
  }

  @Test
  void shouldReadABufferChunkColumnOnlyUpToItsLimit() {
    ByteBuffer column = ByteBuffer.allocate(64).limit(16);
    ColumnChunk chunk = ColumnChunk.ofBuffers(5, column);
    target.bind(slot, LONGS, AT, 3);

    assertThatThrownBy(() -> chunk.copyTo(0, 0, target))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage(
            "field 'label': rows 0..2 of a chunk of 5 rows whose column has 16 bytes "
                + "(expected: 8 bytes per row)");
  }

  @Test
  void shouldRefuseABufferChunkOfNegativeRowsOrAMissingColumn() {
    assertThatThrownBy(() -> ColumnChunk.ofBuffers(-1, ByteBuffer.allocate(8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rows: -1 (expected: >= 0)");
    assertThatThrownBy(() -> ColumnChunk.ofBuffers(1, ByteBuffer.allocate(8), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("column 1: null (expected: a buffer)");
  }

  private static byte[] filled(int length, byte value) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, value);
    return bytes;
  }
}
