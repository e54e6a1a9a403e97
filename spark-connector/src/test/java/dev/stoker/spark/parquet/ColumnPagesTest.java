package dev.stoker.spark.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.stoker.loader.DType;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.IndexPageHeader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/** Column chunks made page by page, read back and broken on purpose. */
class ColumnPagesTest {
  private static final ColumnSpec FLOATS =
      new ColumnSpec("x", Kind.SCALAR, DType.FLOAT32, new int[0], "the declared shape");

  /** Where the chunk starts in the "file": past a few bytes that are not the chunk's. */
  private static final int START = 4;

  @Test
  void shouldReadPlainSnappyAndV2PagesAfterADictionaryAndPassOverIndexPages() throws Exception {
    byte[] dictionary = Pages.floats(1.5f, 2.5f);
    byte[] first = Pages.floats(1, 2, 3);
    byte[] second = Pages.floats(4, 5);
    byte[] third = Pages.floats(6);
    Chunk chunk =
        new Chunk()
            .page(dictionaryHeader(dictionary.length, 2), dictionary)
            .page(index(), new byte[7])
            .page(v1(first.length, 3), first)
            .page(v2(third.length, 1), third);
    ColumnPages pages = pages(chunk, CompressionCodecName.UNCOMPRESSED, 6, false);
    DictionaryPage read = pages.readDictionaryPage();
    assertEquals(2, read.getDictionarySize());
    assertArrayEquals(dictionary, read.getBytes().toByteArray());
    assertArrayEquals(first, ((DataPageV1) pages.readPage()).getBytes().toByteArray());
    DataPageV2 v2 = (DataPageV2) pages.readPage();
    assertArrayEquals(third, v2.getData().toByteArray());
    assertNull(pages.readPage(), "the chunk's values are all read");

    byte[] compressed = Snappy.compress(second);
    Chunk snappy = new Chunk().page(v1(second.length, compressed.length, 2), compressed);
    ColumnPages decompressing = pages(snappy, CompressionCodecName.SNAPPY, 2, false);
    assertNull(decompressing.readDictionaryPage(), "a chunk without a dictionary page");
    assertArrayEquals(second, ((DataPageV1) decompressing.readPage()).getBytes().toByteArray());
  }

  @Test
  void shouldReadAHeaderAcrossTheWindowsEndAndAPageLargerThanTheWindow() throws Exception {
    byte[] first = new byte[ColumnPages.WINDOW_BYTES - 500];
    first[0] = 3;
    PageHeader header = v1(0, 1);
    header
        .getData_page_header()
        .setStatistics(new Statistics().setMin_value(new byte[1000]).setMax_value(new byte[1000]));
    byte[] big = new byte[ColumnPages.WINDOW_BYTES + 12];
    Arrays.fill(big, (byte) 7);
    big[big.length - 1] = 9;
    header.setUncompressed_page_size(big.length).setCompressed_page_size(big.length);
    header.getData_page_header().setNum_values(big.length / 4);
    Chunk chunk = new Chunk().page(v1(first.length, first.length / 4), first).page(header, big);
    ColumnPages pages =
        pages(chunk, CompressionCodecName.UNCOMPRESSED, (first.length + big.length) / 4, false);
    assertArrayEquals(first, ((DataPageV1) pages.readPage()).getBytes().toByteArray());
    assertArrayEquals(big, ((DataPageV1) pages.readPage()).getBytes().toByteArray());
  }

  @Test
  void shouldRefuseAPageThatClaimsMoreBytesThanItsChunksValuesCanTake() {
    byte[] body = Pages.floats(1, 2);
    PageHeader header = v1(body.length, 2).setUncompressed_page_size(1 << 30);
    ColumnPages pages =
        pages(new Chunk().page(header, body), CompressionCodecName.SNAPPY, 2, false);
    assertMessage(pages, "decompress to 1073741824 for 2 values");
  }

  @Test
  void shouldRefuseAPageOfANegativeNumberOfValues() {
    byte[] body = Pages.floats(1);
    ColumnPages pages =
        pages(
            new Chunk().page(v1(body.length, -3), body),
            CompressionCodecName.UNCOMPRESSED,
            1,
            false);
    assertMessage(pages, "a page of -3 values");
  }

  @Test
  void shouldRefuseADataPageHeaderWithoutItsFields() {
    byte[] body = Pages.floats(1);
    PageHeader header = new PageHeader(PageType.DATA_PAGE, body.length, body.length);
    ColumnPages pages =
        pages(new Chunk().page(header, body), CompressionCodecName.UNCOMPRESSED, 1, false);
    assertMessage(pages, "a DATA_PAGE page header without its fields");
  }

  @Test
  void shouldRefuseASnappyPageOfAnotherLengthThanItsHeaderSays() throws Exception {
    byte[] compressed = Snappy.compress(Pages.floats(1, 2, 3));
    PageHeader header = v1(8, compressed.length, 3);
    ColumnPages pages =
        pages(new Chunk().page(header, compressed), CompressionCodecName.SNAPPY, 3, false);
    assertMessage(pages, "a SNAPPY page that does not decompress");
  }

  @Test
  void shouldRefuseAPagePastTheEndOfItsChunkAndAHeaderOfGarbage() {
    byte[] body = Pages.floats(1, 2);
    Chunk chunk = new Chunk().page(v1(body.length, 2), body);
    byte[] bytes = chunk.bytes();
    ColumnPages cut =
        pages(bytes, bytes.length - START - 1, CompressionCodecName.UNCOMPRESSED, 2, false);
    assertMessage(cut, "past the end of its column chunk");

    byte[] garbage = new byte[64];
    Arrays.fill(garbage, (byte) 0xff);
    ColumnPages broken =
        pages(withPrefix(garbage), garbage.length, CompressionCodecName.UNCOMPRESSED, 2, false);
    assertMessage(broken, "a page header that cannot be read");
  }

  @Test
  void shouldCheckPageChecksumsOnlyWhenAskedTo() throws Exception {
    byte[] body = Pages.floats(1, 2, 3);
    CRC32 crc = new CRC32();
    crc.update(body);
    PageHeader header = v1(body.length, 3).setCrc((int) crc.getValue());
    byte[] bytes = new Chunk().page(header, body).bytes();
    bytes[bytes.length - 1] ^= 1;
    assertMessage(
        pages(bytes, bytes.length - START, CompressionCodecName.UNCOMPRESSED, 3, true),
        "a page whose checksum does not match its bytes");
    DataPageV1 unchecked =
        (DataPageV1)
            pages(bytes, bytes.length - START, CompressionCodecName.UNCOMPRESSED, 3, false)
                .readPage();
    assertEquals(3, unchecked.getValueCount());
  }

  /**
   * Bytes the file system checked as they were read (a local file's Hadoop checksum file) are not
   * summed again for their page's checksum; only bytes read without such a check are.
   */
  @Test
  void shouldLeavePageChecksumsToAFileSystemThatVerifiedEveryByte() throws Exception {
    byte[] body = Pages.floats(1, 2, 3);
    byte[] bytes = new Chunk().page(v1(body.length, 3).setCrc(crc(body) ^ 1), body).bytes();
    FileBytes plain = FileBytes.of(new BytesStream(bytes), bytes.length);
    FileBytes verified =
        new FileBytes() {
          @Override
          public boolean verifiesEveryByte() {
            return true;
          }

          @Override
          public int alignment() {
            return plain.alignment();
          }

          @Override
          public long length() {
            return plain.length();
          }

          @Override
          public void readFully(long position, byte[] dst, int offset, int length)
              throws IOException {
            plain.readFully(position, dst, offset, length);
          }

          @Override
          public void close() throws IOException {
            plain.close();
          }
        };
    assertFalse(plain.verifiesEveryByte());
    ColumnPages checked =
        new ColumnPages(
            plain,
            new PageDecompressor(new Configuration()),
            "file:/data/part-0.parquet",
            FLOATS,
            true);
    checked.start(CompressionCodecName.UNCOMPRESSED, START, bytes.length - START, 3);
    assertMessage(checked, "a page whose checksum does not match its bytes");
    ColumnPages left =
        new ColumnPages(
            verified,
            new PageDecompressor(new Configuration()),
            "file:/data/part-0.parquet",
            FLOATS,
            true);
    left.start(CompressionCodecName.UNCOMPRESSED, START, bytes.length - START, 3);
    assertEquals(3, ((DataPageV1) left.readPage()).getValueCount());
  }

  /**
   * A reader that starts at a depth of its row group passes the pages before it by their headers: a
   * body its checksum refuses is never read there, a page that would pass the rows asked for or a
   * row's values, and the chunk's last, are left to {@link ColumnPages#readPage}, which checks
   * them.
   */
  @Test
  void shouldPassOverWholePagesByTheirHeadersAlone() throws Exception {
    byte[] first = Pages.floats(1, 2, 3);
    byte[] second = Pages.floats(4, 5);
    byte[] third = Pages.floats(6, 7);
    Chunk chunk =
        new Chunk()
            .page(v1(first.length, 3).setCrc(crc(first) ^ 1), first)
            .page(index(), new byte[7])
            .page(v1(second.length, 2).setCrc(crc(second)), second)
            .page(v2(third.length, 2).setCrc(crc(third)), third);
    ColumnPages pages = pages(chunk, CompressionCodecName.UNCOMPRESSED, 7, true);
    assertEquals(3, pages.skipPages(4, 1), "the first page; the next would pass 4 values");
    assertArrayEquals(second, ((DataPageV1) pages.readPage()).getBytes().toByteArray());
    assertEquals(0, pages.skipPages(2, 1), "the chunk's last page is read");
    assertArrayEquals(third, ((DataPageV2) pages.readPage()).getData().toByteArray());
    assertNull(pages.readPage());

    ColumnPages pairs = pages(chunk, CompressionCodecName.UNCOMPRESSED, 7, true);
    assertEquals(0, pairs.skipPages(6, 2), "3 values are not whole rows of 2");
    assertMessage(pairs, "a page whose checksum does not match its bytes");
  }

  /** {@link ChunkDecoder#pass} passes whole pages unread and decodes the rows after them. */
  @Test
  void shouldDecodeTheRowsAfterThePagesPassedOver() throws Exception {
    byte[] first = Pages.floats(1, 2, 3);
    byte[] second = Pages.floats(4, 5);
    byte[] third = Pages.floats(6, 7);
    Chunk chunk =
        new Chunk()
            .page(v1(first.length, 3).setCrc(crc(first) ^ 1), first)
            .page(v1(second.length, 2).setCrc(crc(second)), second)
            .page(v1(third.length, 2).setCrc(crc(third)), third);
    ChunkDecoder decoder = floats(chunk, 7);
    decoder.pass(4);
    java.nio.ByteBuffer rows =
        java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    decoder.read(3, rows, 0);
    assertArrayEquals(Pages.floats(5, 6, 7), rows.array());

    ChunkDecoder fromTheStart = floats(chunk, 7);
    IOException e = assertThrows(IOException.class, () -> fromTheStart.pass(2));
    assertTrue(e.getMessage().contains("checksum does not match"), e.getMessage());
  }

  /** A decoder of a required float column over {@code chunk}'s pages, checksums verified. */
  private static ChunkDecoder floats(Chunk chunk, long values) throws IOException {
    org.apache.parquet.schema.MessageType schema =
        org.apache.parquet.schema.Types.buildMessage()
            .required(org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FLOAT)
            .named("x")
            .named("file");
    return new ChunkDecoder(
        FLOATS,
        schema.getColumnDescription(new String[] {"x"}),
        schema,
        pages(chunk, CompressionCodecName.UNCOMPRESSED, values, true),
        "file:/data/part-0.parquet",
        0);
  }

  /** A reader that closes hands its window and page buffer to the next, which reads its own. */
  @Test
  void shouldHandTheWindowAndPageBufferOnToTheNextReader() throws Exception {
    PageArrays arrays = new PageArrays(8);
    byte[] first = Pages.floats(1, 2, 3, 4, 5, 6);
    byte[] firstCompressed = Snappy.compress(first);
    byte[] firstFile =
        new Chunk().page(v1(first.length, firstCompressed.length, 6), firstCompressed).bytes();
    ColumnPages reader = pooled(firstFile, 6, arrays);
    assertArrayEquals(first, ((DataPageV1) reader.readPage()).getBytes().toByteArray());
    reader.release();
    reader.release();
    assertEquals(2, arrays.kept(), "its window and its page buffer, once");

    byte[] second = Pages.floats(7, 8, 9);
    byte[] secondCompressed = Snappy.compress(second);
    byte[] secondFile =
        new Chunk().page(v1(second.length, secondCompressed.length, 3), secondCompressed).bytes();
    ColumnPages next = pooled(secondFile, 3, arrays);
    assertArrayEquals(second, ((DataPageV1) next.readPage()).getBytes().toByteArray());
    assertEquals(0, arrays.kept(), "both taken by the next reader");
    assertNull(next.readPage());
  }

  private static ColumnPages pooled(byte[] file, long values, PageArrays arrays) {
    ColumnPages pages =
        new ColumnPages(
            FileBytes.of(new BytesStream(file), file.length),
            new PageDecompressor(new Configuration()),
            "file:/data/part-0.parquet",
            FLOATS,
            false,
            arrays);
    pages.start(CompressionCodecName.SNAPPY, START, file.length - START, values);
    return pages;
  }

  private static int crc(byte[] body) {
    CRC32 crc = new CRC32();
    crc.update(body);
    return (int) crc.getValue();
  }

  @Test
  void shouldRefuseADictionaryPageAfterADataPage() {
    byte[] body = Pages.floats(1);
    Chunk chunk =
        new Chunk()
            .page(v1(body.length, 1), body)
            .page(dictionaryHeader(body.length, 1), body)
            .page(v1(body.length, 1), body);
    ColumnPages pages = pages(chunk, CompressionCodecName.UNCOMPRESSED, 2, false);
    pages.readPage();
    assertMessage(pages, "a dictionary page after the first page");
  }

  @Test
  void shouldNameTheReadThatFailed() {
    byte[] body = Pages.floats(1);
    byte[] bytes = new Chunk().page(v1(body.length, 1), body).bytes();
    SeekableInputStream failing =
        new DelegatingSeekableInputStream(new ByteArrayInputStream(bytes)) {
          @Override
          public long getPos() {
            return 0;
          }

          @Override
          public void seek(long position) throws IOException {
            throw new IOException("disk gone");
          }
        };
    ColumnPages pages =
        new ColumnPages(
            FileBytes.of(failing, bytes.length),
            new PageDecompressor(new Configuration()),
            "file:/data/part-0.parquet",
            FLOATS,
            false);
    pages.start(CompressionCodecName.UNCOMPRESSED, START, bytes.length - START, 1);
    assertMessage(pages, "disk gone");
  }

  private static void assertMessage(ColumnPages pages, String expected) {
    UncheckedIOException e = assertThrows(UncheckedIOException.class, pages::readPage);
    String message = e.getCause().getMessage();
    assertTrue(message.contains(expected), message);
    assertTrue(message.startsWith("column 'x' of file 'file:/data/part-0.parquet': "), message);
    assertTrue(message.contains("rewrite it or read it with Spark's own reader"), message);
  }

  private static ColumnPages pages(
      Chunk chunk, CompressionCodecName codec, long values, boolean verify) {
    byte[] bytes = chunk.bytes();
    return pages(bytes, bytes.length - START, codec, values, verify);
  }

  private static ColumnPages pages(
      byte[] file, long chunkBytes, CompressionCodecName codec, long values, boolean verify) {
    ColumnPages pages =
        new ColumnPages(
            FileBytes.of(new BytesStream(file), file.length),
            new PageDecompressor(new Configuration()),
            "file:/data/part-0.parquet",
            FLOATS,
            verify);
    pages.start(codec, START, chunkBytes, values);
    return pages;
  }

  private static PageHeader v1(int bytes, int values) {
    return v1(bytes, bytes, values);
  }

  private static PageHeader v1(int uncompressed, int compressed, int values) {
    PageHeader header = new PageHeader(PageType.DATA_PAGE, uncompressed, compressed);
    header.setData_page_header(
        new DataPageHeader(values, Encoding.PLAIN, Encoding.RLE, Encoding.RLE));
    return header;
  }

  private static PageHeader v2(int bytes, int values) {
    PageHeader header = new PageHeader(PageType.DATA_PAGE_V2, bytes, bytes);
    header.setData_page_header_v2(
        new DataPageHeaderV2(values, 0, values, Encoding.PLAIN, 0, 0).setIs_compressed(false));
    return header;
  }

  private static PageHeader dictionaryHeader(int bytes, int values) {
    PageHeader header = new PageHeader(PageType.DICTIONARY_PAGE, bytes, bytes);
    header.setDictionary_page_header(new DictionaryPageHeader(values, Encoding.PLAIN));
    return header;
  }

  private static PageHeader index() {
    PageHeader header = new PageHeader(PageType.INDEX_PAGE, 7, 7);
    header.setIndex_page_header(new IndexPageHeader());
    return header;
  }

  private static byte[] withPrefix(byte[] chunk) {
    byte[] file = new byte[START + chunk.length];
    System.arraycopy(chunk, 0, file, START, chunk.length);
    return file;
  }

  /** A column chunk's bytes, page after page, behind {@link #START} other bytes. */
  private static final class Chunk {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Chunk() {
      out.write(new byte[START], 0, START);
    }

    Chunk page(PageHeader header, byte[] body) {
      try {
        Util.writePageHeader(header, out);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      out.write(body, 0, body.length);
      return this;
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }

  /** A file in memory. */
  private static final class BytesStream extends DelegatingSeekableInputStream {
    private final Positioned in;

    BytesStream(byte[] bytes) {
      this(new Positioned(bytes));
    }

    private BytesStream(Positioned in) {
      super(in);
      this.in = in;
    }

    @Override
    public long getPos() {
      return in.position();
    }

    @Override
    public void seek(long position) {
      in.seek((int) position);
    }
  }

  private static final class Positioned extends ByteArrayInputStream {
    Positioned(byte[] bytes) {
      super(bytes);
    }

    int position() {
      return pos;
    }

    void seek(int position) {
      pos = position;
    }
  }

  private static byte[] gzip(byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream gzip = new java.util.zip.GZIPOutputStream(out)) {
      gzip.write(bytes);
    }
    return out.toByteArray();
  }

  @Test
  void shouldReadAGzipPageIntoItsBuffer() throws Exception {
    byte[] values = Pages.floats(1, 2, 3);
    byte[] body = gzip(values);
    ColumnPages pages =
        pages(
            new Chunk().page(v1(values.length, body.length, 3), body),
            CompressionCodecName.GZIP,
            3,
            false);
    assertArrayEquals(values, ((DataPageV1) pages.readPage()).getBytes().toByteArray());
  }

  @Test
  void shouldRefuseAGzipPageOfTwoBillionBytesInAChunkOfTwoToThe28ValuesBeforeAllocating()
      throws Exception {
    // "value count x width" let it through: the JVM ran out of memory and Spark ended it
    byte[] body = gzip(Pages.floats(1, 2, 3));
    PageHeader header = v1(2_000_000_000, body.length, 3);
    ColumnPages pages =
        pages(new Chunk().page(header, body), CompressionCodecName.GZIP, 1L << 28, false);
    assertMessage(
        pages,
        "a page header of "
            + body.length
            + " bytes that decompress to "
            + "2000000000 for 3 values (expected: at most "
            + Math.min(1032L * body.length + 64, 3 * 12 + (64 << 10))
            + " bytes for GZIP and 12 bytes a value) in the page at byte 4");
  }

  @Test
  void shouldRefuseAPageOfMoreValuesThanItsChunkHasLeft() {
    byte[] body = Pages.floats(1, 2);
    ColumnPages pages =
        pages(
            new Chunk().page(v1(body.length, 2), body),
            CompressionCodecName.UNCOMPRESSED,
            1,
            false);
    assertMessage(pages, "a page of 2 values where its chunk has 1 left");
  }

  @Test
  void shouldTurnAPageTooLargeForTheHeapIntoAnIoExceptionWithoutTheOutOfMemoryError()
      throws Exception {
    String launcher =
        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process probe =
        new ProcessBuilder(
                launcher,
                "-Xmx96m",
                "-cp",
                System.getProperty("java.class.path"),
                PageMemoryProbe.class.getName())
            .redirectErrorStream(true)
            .start();
    String output =
        new String(probe.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(0, probe.waitFor(), output);
    assertEquals(
        "java.io.IOException: column 'x' of file 'file:/data/huge.parquet': a page "
            + "that needs "
            + (PageMemoryProbe.VALUES * 4)
            + " bytes, more than the JVM has free "
            + "(Java heap space) in the page at byte 0 (expected: a complete, uncorrupted Parquet "
            + "file; rewrite it or read it with Spark's own reader)",
        output.strip());
  }
}
