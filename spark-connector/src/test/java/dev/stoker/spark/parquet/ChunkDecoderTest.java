package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

/**
 * Stoker's page decoder on pages made by hand: values across pages, rows passed over, and every bad
 * row found by its levels, named by its row in the file.
 */
class ChunkDecoderTest {
  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message m { "
              + "optional group image (LIST) { repeated group list { optional float element; } } "
              + "optional int32 label; optional binary pixels; }");
  private static final ColumnSpec IMAGE =
      new ColumnSpec("image", Kind.LIST, DType.FLOAT32, new int[] {3}, "the footers");
  private static final ColumnSpec LABEL =
      new ColumnSpec("label", Kind.SCALAR, DType.INT32, new int[0], "");
  private static final ColumnSpec PIXELS =
      new ColumnSpec("pixels", Kind.BINARY, DType.UINT8, new int[] {2}, "shape.pixels");

  /** A page of list rows: repetition and definition levels, and the present values. */
  private static DataPage list(int[] reps, int[] defs, float... values) {
    return Pages.v1(1, reps, 2, defs, Pages.floats(values), Encoding.PLAIN);
  }

  private static ChunkDecoder image(DataPage... pages) throws IOException {
    return new ChunkDecoder(
        IMAGE,
        SCHEMA.getColumnDescription(new String[] {"image", "list", "element"}),
        SCHEMA,
        Pages.reader(null, List.of(pages)),
        "f",
        100);
  }

  private static ByteBuffer window(int bytes) {
    return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
  }

  @Test
  void shouldDecodeRowsAcrossPagesAfterPassingOverTheFirst() throws IOException {
    ChunkDecoder decoder =
        image(
            list(new int[] {0, 1, 1, 0, 1, 1}, new int[] {3, 3, 3, 3, 3, 3}, 0, 1, 2, 10, 11, 12),
            list(
                new int[] {0, 1, 1, 0, 1, 1},
                new int[] {3, 3, 3, 3, 3, 3},
                20,
                21,
                22,
                30,
                31,
                32));
    ByteBuffer window = window(64);

    decoder.read(1, null, 0);
    decoder.read(3, window, 4);

    assertThat(window.getFloat(4)).isEqualTo(10f);
    assertThat(window.getFloat(4 + 3 * 4)).isEqualTo(20f);
    assertThat(window.getFloat(4 + 8 * 4)).isEqualTo(32f);
  }

  @Test
  void shouldNameANullListAnEmptyListAndANullValueByTheirRow() throws IOException {
    int[] reps = {0, 1, 1, 0, 0, 1, 1};

    assertThatThrownBy(
            () ->
                image(list(reps, new int[] {3, 3, 3, 0, 3, 3, 3}, 0, 1, 2, 3, 4, 5))
                    .read(3, window(64), 0))
        .hasMessage(
            "column 'image' is null in row 101 of file 'f' "
                + "(expected: no nulls in a column format(\"stoker\") loads; drop or fill them before "
                + "writing, e.g. df.na().drop() or df.na().fill(...))");
    assertThatThrownBy(
            () ->
                image(list(reps, new int[] {3, 3, 3, 1, 3, 3, 3}, 0, 1, 2, 3, 4, 5))
                    .read(3, window(64), 0))
        .hasMessageStartingWith(
            "column 'image' has 0 values in row 101 "
                + "of file 'f' (expected: 3 = [3], as the footers say;");
    assertThatThrownBy(
            () ->
                image(
                        list(
                            new int[] {0, 1, 1, 0, 1, 1},
                            new int[] {3, 3, 3, 3, 2, 3},
                            0,
                            1,
                            2,
                            3,
                            5))
                    .read(2, window(64), 0))
        .hasMessageStartingWith("column 'image' holds a null value in row 101 of file 'f'");
  }

  @Test
  void shouldNameRowsOfOtherLengthsWithTheirLength() throws IOException {
    assertThatThrownBy(
            () ->
                image(
                        list(
                            new int[] {0, 1, 1, 0, 1, 0, 1, 1},
                            new int[] {3, 3, 3, 3, 3, 3, 3, 3},
                            0,
                            1,
                            2,
                            3,
                            4,
                            5,
                            6,
                            7))
                    .read(3, window(64), 0))
        .hasMessage(
            "column 'image' has 2 values in row 101 of file 'f' (expected: 3 = [3], as "
                + "the footers say; write every row with 3, or filter out the others before loading)");
    assertThatThrownBy(
            () ->
                image(
                        list(
                            new int[] {0, 1, 1, 1, 1, 0, 1, 1},
                            new int[] {3, 3, 3, 3, 3, 3, 3, 3},
                            0,
                            1,
                            2,
                            3,
                            4,
                            5,
                            6,
                            7))
                    .read(2, window(64), 0))
        .hasMessageStartingWith("column 'image' has 5 values in row 100 of file 'f'");
  }

  @Test
  void shouldLookUpDictionaryIds() throws IOException {
    DictionaryPage dictionary = Pages.dictionary(Pages.ints(7, 9), 2);
    ChunkDecoder decoder =
        new ChunkDecoder(
            LABEL,
            SCHEMA.getColumnDescription(new String[] {"label"}),
            SCHEMA,
            Pages.reader(
                dictionary,
                List.of(
                    Pages.v1(
                        0,
                        null,
                        1,
                        new int[] {1, 1, 1, 1, 1},
                        Pages.ids(1, 0, 1, 1, 0, 1),
                        Encoding.RLE_DICTIONARY))),
            "f",
            0);
    ByteBuffer window = window(32);

    decoder.read(1, null, 0);
    decoder.read(4, window, 0);

    assertThat(window.getInt(0)).isEqualTo(9);
    assertThat(window.getInt(4)).isEqualTo(9);
    assertThat(window.getInt(8)).isEqualTo(7);
    assertThat(window.getInt(12)).isEqualTo(9);
  }

  @Test
  void shouldCheckTheLengthOfEveryBinaryValue() throws IOException {
    ByteBuffer values =
        ByteBuffer.allocate(4 + 2 + 4 + 3)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(2)
            .put(new byte[] {1, 2})
            .putInt(3)
            .put(new byte[] {3, 4, 5});
    ChunkDecoder decoder =
        new ChunkDecoder(
            PIXELS,
            SCHEMA.getColumnDescription(new String[] {"pixels"}),
            SCHEMA,
            Pages.reader(
                null,
                List.of(Pages.v1(0, null, 1, new int[] {1, 1}, values.array(), Encoding.PLAIN))),
            "f",
            40);

    assertThatThrownBy(() -> decoder.read(2, window(16), 0))
        .hasMessage(
            "column 'pixels' has 3 "
                + "bytes in row 41 of file 'f' (expected: 2 = [2], as shape.pixels says; write every row "
                + "with 2, or filter out the others before loading; for bytes of varying length "
                + "(e.g. encoded images), set option transforms to a transform that reads them as "
                + "variable-length values)");
  }

  /** A run header of the hybrid encoding: {@code count} and the kind bit, as a varint. */
  private static byte[] runHeader(long count, boolean packed) {
    long value = count << 1 | (packed ? 1 : 0);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    do {
      out.write((int) (value & 0x7f) | (value >= 0x80 ? 0x80 : 0));
      value >>>= 7;
    } while (value != 0);
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.write(part, 0, part.length);
    }
    return out.toByteArray();
  }

  private static ChunkDecoder labels(DictionaryPage dictionary, DataPage page) throws IOException {
    return new ChunkDecoder(
        LABEL,
        SCHEMA.getColumnDescription(new String[] {"label"}),
        SCHEMA,
        Pages.reader(dictionary, List.of(page)),
        "f",
        0);
  }

  private static ChunkDecoder pixels(DictionaryPage dictionary) throws IOException {
    return new ChunkDecoder(
        PIXELS,
        SCHEMA.getColumnDescription(new String[] {"pixels"}),
        SCHEMA,
        Pages.reader(dictionary, List.of()),
        "f",
        0);
  }

  @Test
  void shouldRefuseDictionaryIdsInABitPackedRunOfTwoToThe28GroupsInsteadOfReadingZeros() {
    // 2^28 groups of 8 made a negative run: rows 4 to 7 of 8 came back as zeros, no error
    byte[] ids = concat(new byte[] {1}, runHeader(1L << 28, true), new byte[] {(byte) 0xff});
    DataPage page =
        Pages.v1(0, null, 1, new int[] {1, 1, 1, 1, 1, 1, 1, 1}, ids, Encoding.RLE_DICTIONARY);

    assertThatThrownBy(
            () -> labels(Pages.dictionary(Pages.ints(7, 9), 2), page).read(8, window(32), 0))
        .isInstanceOf(IOException.class)
        .hasMessage(
            "column 'label' of file 'f': a bit-packed run of 268435456 groups of 8 "
                + "values (268435456 bytes) with 1 bytes left, at byte 0 of 6 bytes of 1-bit values "
                + "in the page at byte -1 (expected: a complete, uncorrupted Parquet file; rewrite it "
                + "or read it with Spark's own reader)");
  }

  @Test
  void shouldRefuseNullDefinitionLevelsInANegativeRunInsteadOfPassingThem() {
    // the same run over definition levels let null rows pass unchecked
    byte[] levels = concat(runHeader(1L << 28, true), new byte[] {0});
    java.nio.ByteBuffer page =
        ByteBuffer.allocate(4 + levels.length + 32)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(levels.length)
            .put(levels);
    DataPage v1 =
        new org.apache.parquet.column.page.DataPageV1(
            org.apache.parquet.bytes.BytesInput.from(page.array()),
            8,
            page.capacity(),
            null,
            Encoding.RLE,
            Encoding.RLE,
            Encoding.PLAIN);

    assertThatThrownBy(() -> labels(null, v1).read(8, window(32), 0))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a bit-packed run of 268435456 groups of 8 values");
  }

  @Test
  void shouldRefuseADictionaryOfTwoBillionEntriesBeforeAllocatingThem() {
    assertThatThrownBy(() -> pixels(Pages.dictionary(new byte[] {2, 0, 0, 0, 1, 2}, 2_000_000_000)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            "column 'pixels' of file 'f': a dictionary page of 2000000000 "
                + "values of at least 4 bytes that holds 6 bytes in the page at byte -1");
  }

  @Test
  void shouldRefuseDictionaryEntriesLongerThanTheBytesLeftOrNegative() {
    assertThatThrownBy(() -> pixels(Pages.dictionary(Pages.ints(0x7ffffff0, 0), 2)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            "column 'pixels' of file 'f': "
                + "dictionary entry 0 of 2 at byte 0 of the page: a length of 2147483632 with 4 "
                + "bytes left");
    assertThatThrownBy(() -> pixels(Pages.dictionary(Pages.ints(-5, 0), 2)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            "column 'pixels' of file 'f': "
                + "dictionary entry 0 of 2 at byte 0 of the page: a length of -5 with 4 bytes left");
  }

  @Test
  void shouldRefuseALevelLengthOfTwoToThe31AndATruncatedV2LevelSectionAsIoExceptions() {
    ByteBuffer page =
        ByteBuffer.allocate(4 + 8)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(0x7fffffff)
            .putInt(7)
            .putInt(9);
    DataPage v1 =
        new org.apache.parquet.column.page.DataPageV1(
            org.apache.parquet.bytes.BytesInput.from(page.array()),
            2,
            page.capacity(),
            null,
            Encoding.RLE,
            Encoding.RLE,
            Encoding.PLAIN);
    assertThatThrownBy(() -> labels(null, v1).read(2, window(16), 0))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            "column 'label' of file 'f': "
                + "the definition levels of a page say 2147483647 bytes where 8 are left");

    byte[] levels = Pages.hybrid(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    DataPage v2 =
        org.apache.parquet.column.page.DataPageV2.uncompressed(
            17,
            0,
            17,
            org.apache.parquet.bytes.BytesInput.empty(),
            org.apache.parquet.bytes.BytesInput.from(Arrays.copyOf(levels, levels.length - 1)),
            Encoding.PLAIN,
            org.apache.parquet.bytes.BytesInput.from(new byte[17 * 4]),
            null);
    assertThatThrownBy(() -> labels(null, v2).read(17, window(80), 0))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("column 'label' of file 'f': " + "a repeated run of ")
        .hasMessageContaining(" values of 1 bytes with 0 bytes left");
  }
}
