package dev.stoker.spark.parquet;

import dev.stoker.loader.DType;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Run in a JVM of little heap by {@link ColumnPagesTest}: reads a GZIP page whose 200 MB are within
 * every bound (its values need them) but more than the heap holds, and prints what came out, the
 * whole cause chain, one class and message a line. A decoder that let the {@link OutOfMemoryError}
 * out would end this JVM only.
 */
final class PageMemoryProbe {
  static final int VALUES = 50 << 20;

  private PageMemoryProbe() {}

  public static void main(String[] args) throws IOException {
    ByteArrayOutputStream zipped = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(zipped)) {
      byte[] zeros = new byte[1 << 20];
      for (int i = 0; i < VALUES * 4 / zeros.length; i++) {
        gzip.write(zeros);
      }
    }
    byte[] body = zipped.toByteArray();
    PageHeader header = new PageHeader(PageType.DATA_PAGE, VALUES * 4, body.length);
    header.setData_page_header(
        new DataPageHeader(VALUES, Encoding.PLAIN, Encoding.RLE, Encoding.RLE));
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    Util.writePageHeader(header, file);
    file.write(body);
    byte[] bytes = file.toByteArray();
    FileBytes memory =
        new FileBytes() {
          @Override
          public int alignment() {
            return 1;
          }

          @Override
          public long length() {
            return bytes.length;
          }

          @Override
          public void readFully(long position, byte[] dst, int offset, int length) {
            System.arraycopy(bytes, (int) position, dst, offset, length);
          }

          @Override
          public void close() {}
        };
    ColumnPages pages =
        new ColumnPages(
            memory,
            new PageDecompressor(new Configuration()),
            "file:/data/huge.parquet",
            new ColumnSpec("x", Kind.SCALAR, DType.FLOAT32, new int[0], ""),
            true);
    pages.start(CompressionCodecName.GZIP, 0, bytes.length, VALUES);
    try {
      pages.readPage();
      System.out.println("read");
    } catch (UncheckedIOException e) {
      for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
        System.out.println(t.getClass().getName() + ": " + t.getMessage());
      }
    }
  }
}
