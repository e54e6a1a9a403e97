package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The RLE / bit-packing hybrid read run by run gives what Parquet's encoder wrote. */
class HybridDecoderTest {

  private static List<Integer> decode(byte[] encoded, int bitWidth, int count, boolean skipRuns)
      throws PageFormatException {
    HybridDecoder decoder = new HybridDecoder(ByteBuffer.wrap(encoded), bitWidth);
    List<Integer> values = new ArrayList<>();
    while (values.size() < count) {
      int available = Math.min(decoder.available(), count - values.size());
      assertThat(available).isPositive();
      if (decoder.rle() && skipRuns) {
        for (int i = 0; i < available; i++) {
          values.add(decoder.value());
        }
        decoder.skip(available);
      } else {
        for (int i = 0; i < available; i++) {
          values.add(decoder.next());
        }
      }
    }
    return values;
  }

  @Test
  void shouldReadRunsAndPackedValuesOfEveryWidth() throws PageFormatException {
    Random random = new Random(3);
    for (int bitWidth = 1; bitWidth <= 20; bitWidth++) {
      int[] values = new int[2000];
      for (int i = 0; i < values.length; ) {
        int run = random.nextBoolean() ? 1 + random.nextInt(40) : 1;
        int value = random.nextInt(1 << bitWidth);
        for (int j = 0; j < run && i < values.length; j++) {
          values[i++] = value;
        }
      }
      byte[] encoded = Pages.hybrid(bitWidth, values);
      List<Integer> expected = new ArrayList<>();
      for (int value : values) {
        expected.add(value);
      }

      assertThat(decode(encoded, bitWidth, values.length, true)).isEqualTo(expected);
      assertThat(decode(encoded, bitWidth, values.length, false)).isEqualTo(expected);
    }
  }

  @Test
  void shouldReadBlocksAcrossRunsAsValueByValueForEveryWidth() throws PageFormatException {
    Random random = new Random(5);
    for (int bitWidth = 0; bitWidth <= 32; bitWidth++) {
      int[] values = new int[3000];
      for (int i = 0; i < values.length; ) {
        int run = random.nextInt(3) == 0 ? 1 + random.nextInt(60) : 1;
        int value = bitWidth == 0 ? 0 : random.nextInt() >>> (32 - bitWidth);
        for (int j = 0; j < run && i < values.length; j++) {
          values[i++] = value;
        }
      }
      byte[] encoded = Pages.hybrid(bitWidth, values);
      HybridDecoder decoder = new HybridDecoder(ByteBuffer.wrap(encoded), bitWidth);
      int[] read = new int[values.length + 8];
      int at = 0;
      while (at < values.length) {
        if (random.nextInt(4) == 0 && decoder.available() > 0) { // mixed with single values
          read[at++] = decoder.next();
        } else {
          at += decoder.read(read, at, Math.min(values.length - at, 1 + random.nextInt(100)));
        }
      }
      assertThat(java.util.Arrays.copyOf(read, values.length))
          .as("bit width " + bitWidth)
          .isEqualTo(values);
      // Past the values the encoder wrote only padding of the last group may be left.
      assertThat(decoder.read(read, 0, 8)).as("bit width " + bitWidth).isLessThan(8);
    }
  }

  @Test
  void shouldReadBlocksFromASliceOfALargerArrayAndWriteNothingPastThem()
      throws PageFormatException {
    Random random = new Random(7);
    for (int bitWidth : new int[] {1, 7, 15, 16, 17, 32}) {
      int[] values = new int[1000];
      for (int i = 0; i < values.length; i++) {
        values[i] = random.nextInt() >>> (32 - bitWidth);
      }
      byte[] encoded = Pages.hybrid(bitWidth, values);
      byte[] larger = new byte[encoded.length + 40]; // other bytes on both sides of the page
      random.nextBytes(larger);
      System.arraycopy(encoded, 0, larger, 13, encoded.length);
      ByteBuffer page = ByteBuffer.wrap(larger, 13, encoded.length).slice();
      HybridDecoder decoder = new HybridDecoder(page, bitWidth);
      int[] read = new int[values.length + 16];
      java.util.Arrays.fill(read, -7);
      int first = 3 + 8 * 40 + 5; // from inside a group of 8 to inside another
      int[] beyond = new int[16];
      java.util.Arrays.fill(beyond, -7);

      assertThat(decoder.read(read, 0, first)).isEqualTo(first);
      assertThat(java.util.Arrays.copyOfRange(read, first, first + 16))
          .as("bit width " + bitWidth + ": nothing written past the values asked for")
          .isEqualTo(beyond);
      assertThat(decoder.read(read, first, values.length - first)).isEqualTo(values.length - first);
      assertThat(java.util.Arrays.copyOf(read, values.length))
          .as("bit width " + bitWidth)
          .isEqualTo(values);
    }
  }

  /** Ids looked up as read give the table's entries, little-endian, at every width and run kind. */
  @Test
  void shouldLookIdsUpAsTheyAreReadAndNameAnIdBeyondTheTable() throws PageFormatException {
    Random random = new Random(9);
    for (int bitWidth : new int[] {1, 7, 15, 16, 17}) {
      int[] table = new int[Math.min(1 << bitWidth, 40_000) - 1];
      for (int i = 0; i < table.length; i++) {
        table[i] = random.nextInt();
      }
      int[] ids = new int[3000];
      for (int i = 0; i < ids.length; ) {
        int run = random.nextInt(3) == 0 ? 1 + random.nextInt(60) : 1;
        int id = random.nextInt(table.length);
        for (int j = 0; j < run && i < ids.length; j++) {
          ids[i++] = id;
        }
      }
      HybridDecoder decoder =
          new HybridDecoder(ByteBuffer.wrap(Pages.hybrid(bitWidth, ids)), bitWidth);
      byte[] dst = new byte[5 + 4 * ids.length + 8];
      java.util.Arrays.fill(dst, (byte) 7);
      int done = 0;
      while (done < ids.length) {
        int n = Math.min(ids.length - done, 1 + random.nextInt(300));
        assertThat(decoder.lookUp(table, n, dst, 5 + 4 * done, new int[1 + random.nextInt(64)]))
            .isEqualTo(n);
        done += n;
      }
      ByteBuffer written = ByteBuffer.wrap(dst).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < ids.length; i++) {
        assertThat(written.getInt(5 + 4 * i))
            .as("width %d, id %d", bitWidth, i)
            .isEqualTo(table[ids[i]]);
      }
      for (int i = 5 + 4 * ids.length; i < dst.length; i++) {
        assertThat(dst[i])
            .as("width %d: nothing written past the values", bitWidth)
            .isEqualTo((byte) 7);
      }

      int[] beyond = {
        0,
        1,
        0,
        table.length,
        0,
        0,
        0,
        0,
        table.length,
        table.length,
        table.length,
        table.length,
        table.length,
        table.length,
        table.length,
        table.length,
        table.length
      };
      for (int[] bad :
          new int[][] {
            java.util.Arrays.copyOf(beyond, 8), java.util.Arrays.copyOfRange(beyond, 8, 17)
          }) {
        HybridDecoder failing =
            new HybridDecoder(ByteBuffer.wrap(Pages.hybrid(bitWidth, bad)), bitWidth);
        assertThatThrownBy(
                () -> failing.lookUp(table, bad.length, new byte[4 * bad.length], 0, new int[16]))
            .as("width %d", bitWidth)
            .isInstanceOf(PageFormatException.class)
            .hasMessageContaining(
                "dictionary id " + table.length + " of a dictionary of " + table.length);
      }
    }
  }

  @Test
  void shouldTakeALongRunInOneStep() throws PageFormatException {
    int[] levels = new int[10_000];
    java.util.Arrays.fill(levels, 3);
    HybridDecoder decoder = new HybridDecoder(ByteBuffer.wrap(Pages.hybrid(2, levels)), 2);

    int available = decoder.available();

    assertThat(decoder.rle()).isTrue();
    assertThat(decoder.value()).isEqualTo(3);
    assertThat(available).isGreaterThanOrEqualTo(9_990);
  }

  /** A run header: {@code count} and the kind bit, as an unsigned varint. */
  private static byte[] header(long count, boolean packed, int... after) {
    long value = count << 1 | (packed ? 1 : 0);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    do {
      out.write((int) (value & 0x7f) | (value >= 0x80 ? 0x80 : 0));
      value >>>= 7;
    } while (value != 0);
    for (int b : after) {
      out.write(b);
    }
    return out.toByteArray();
  }

  @Test
  void shouldRefuseABitPackedRunOfMoreGroupsThanItsBytesHold() {
    // 2^28 groups: 2^31 values, which wrapped negative in an int and ended the copy early
    HybridDecoder decoder = new HybridDecoder(ByteBuffer.wrap(header(1L << 28, true, 0xff)), 1);

    assertThatThrownBy(decoder::available)
        .isInstanceOf(PageFormatException.class)
        .hasMessage(
            "a bit-packed run of 268435456 groups of 8 values (268435456 bytes) with 1 "
                + "bytes left, at byte 0 of 6 bytes of 1-bit values");
  }

  @Test
  void shouldRefuseEmptyRunsValuesWiderThanTheWidthAndHeadersThatDoNotEnd() {
    assertThatThrownBy(() -> new HybridDecoder(ByteBuffer.wrap(header(0, false, 1)), 1).available())
        .hasMessageStartingWith("a repeated run of 0 values of 1 bytes");
    assertThatThrownBy(() -> new HybridDecoder(ByteBuffer.wrap(header(4, false, 5)), 2).available())
        .hasMessageStartingWith("a repeated value 5 wider than 2 bits");
    assertThatThrownBy(() -> new HybridDecoder(ByteBuffer.wrap(header(4, false)), 2).available())
        .hasMessageStartingWith("a repeated run of 4 values of 1 bytes with 0 " + "bytes left");
    byte[] endless = new byte[8];
    java.util.Arrays.fill(endless, (byte) 0x81);
    assertThatThrownBy(() -> new HybridDecoder(ByteBuffer.wrap(endless), 2).available())
        .hasMessageStartingWith("a run header that does not end within 5 bytes");
  }
}
