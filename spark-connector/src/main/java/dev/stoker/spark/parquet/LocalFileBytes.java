package dev.stoker.spark.parquet;

import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A file of Hadoop's local file system read straight from the disk, its checksums verified by
 * Stoker. The checksum file {@code .name.crc} beside it holds a CRC-32 of every {@code
 * bytesPerChecksum} bytes; Hadoop's own stream verifies them 512 bytes at a time through small
 * buffered reads, which costs a third of the time Parquet pages take to read. Here reads are whole
 * checksum chunks, verified in the caller's array against the sums read for them, joined into the
 * sum of the whole read ({@link Crc32Join}). Without a checksum file nothing is verified, as with
 * Hadoop.
 */
public final class LocalFileBytes implements FileBytes {
  /** Hadoop's checksum file: this header, the bytes per checksum, then the checksums. */
  private static final byte[] MAGIC = {'c', 'r', 'c', 0};

  private static final int HEADER_BYTES = MAGIC.length + 4;

  /** Bytes read from the disk at once, through the JDK's cached direct buffer of that size. */
  private static final int READ_BYTES = 64 << 10;

  /** The join for Hadoop's default bytes per checksum, made once (its tables take 4 KiB). */
  private static final Crc32Join JOIN_512 = new Crc32Join(512);

  private final String path;
  private final FileChannel data;
  private final long length;
  private final FileChannel sums;
  private final String sumsPath;
  private final int bytesPerChecksum;
  private final CRC32 crc = new CRC32();
  private final Crc32Join join;
  private ByteBuffer sumBytes = ByteBuffer.allocate(0);

  private LocalFileBytes(
      String path, FileChannel data, FileChannel sums, String sumsPath, int bytesPerChecksum)
      throws IOException {
    this.path = path;
    this.data = data;
    this.length = data.size();
    this.sums = sums;
    this.sumsPath = sumsPath;
    this.bytesPerChecksum = bytesPerChecksum;
    this.join =
        sums == null
            ? null
            : bytesPerChecksum == JOIN_512.length() ? JOIN_512 : new Crc32Join(bytesPerChecksum);
  }

  /** The file at {@code path} if Hadoop's local file system holds it, else null. */
  static FileBytes open(Path path, Configuration conf) throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    if (!(fs instanceof LocalFileSystem local)) {
      return null;
    }
    FileChannel data = FileChannel.open(local.pathToFile(path).toPath(), StandardOpenOption.READ);
    FileChannel sums = null;
    try {
      File sumsFile = local.pathToFile(local.getChecksumFile(path));
      try {
        sums = FileChannel.open(sumsFile.toPath(), StandardOpenOption.READ);
      } catch (NoSuchFileException e) {
        return new LocalFileBytes(path.toString(), data, null, null, 1);
      }
      ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
      readFully(sums, header, 0);
      int bytesPerChecksum = header.getInt(MAGIC.length);
      long chunks =
          bytesPerChecksum <= 0 ? -1 : (data.size() + bytesPerChecksum - 1) / bytesPerChecksum;
      if (!header.flip().slice(0, MAGIC.length).equals(ByteBuffer.wrap(MAGIC))
          || chunks < 0
          || sums.size() != HEADER_BYTES + 4 * chunks) {
        throw new IOException(
            "'"
                + sumsFile
                + "' does not hold the checksums of the "
                + data.size()
                + " bytes of '"
                + path
                + "' (expected: the file as it was written, "
                + "and its checksum file)");
      }
      return new LocalFileBytes(path.toString(), data, sums, sumsFile.toString(), bytesPerChecksum);
    } catch (IOException | RuntimeException | Error e) {
      data.close();
      if (sums != null) {
        sums.close();
      }
      throw e;
    }
  }

  @Override
  public int alignment() {
    return bytesPerChecksum;
  }

  @Override
  public boolean verifiesEveryByte() {
    return sums != null;
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public void readFully(long position, byte[] dst, int offset, int count) throws IOException {
    long stop = position + count;
    if (position % bytesPerChecksum != 0 || (stop % bytesPerChecksum != 0 && stop != length)) {
      throw new IllegalArgumentException(
          "bytes ["
              + position
              + ", "
              + stop
              + ") of '"
              + path
              + "' are not whole checksum chunks of "
              + bytesPerChecksum);
    }
    crc.reset();
    for (int at = 0; at < count; at += READ_BYTES) {
      int bytes = Math.min(READ_BYTES, count - at);
      readFully(data, ByteBuffer.wrap(dst, offset + at, bytes), position + at);
      if (sums != null) {
        crc.update(dst, offset + at, bytes); // while the part is still in the cache
      }
    }
    if (sums != null) {
      verify(position, dst, offset, count);
    }
  }

  /**
   * Checks the read, whose CRC over all of its bytes {@link #crc} holds, against the chunks' sums
   * in the checksum file joined ({@link Crc32Join}); only where they differ, chunk by chunk, to
   * name the bad one.
   */
  private void verify(long position, byte[] dst, int offset, int count) throws IOException {
    int actual = (int) crc.getValue();
    if (count == 0) {
      return;
    }
    long first = position / bytesPerChecksum;
    int chunks = (int) ((count + bytesPerChecksum - 1L) / bytesPerChecksum);
    if (sumBytes.capacity() < 4 * chunks) {
      sumBytes = ByteBuffer.allocate(4 * chunks);
    }
    sumBytes.clear().limit(4 * chunks);
    readFully(sums, sumBytes, HEADER_BYTES + 4 * first);
    int expected = sumBytes.getInt(0);
    for (int i = 1; i < chunks; i++) {
      int bytes = Math.min(bytesPerChecksum, count - i * bytesPerChecksum);
      int sum = sumBytes.getInt(4 * i);
      expected =
          bytes == bytesPerChecksum
              ? join.join(expected, sum)
              : Crc32Join.join(expected, sum, bytes);
    }
    if (actual != expected) {
      throw mismatch(position, dst, offset, count, chunks);
    }
  }

  /** The error of a read that does not match its sums, naming the first chunk that does not. */
  private IOException mismatch(long position, byte[] dst, int offset, int count, int chunks) {
    long from = position;
    long to = position + count;
    for (int i = 0; i < chunks; i++) {
      int at = i * bytesPerChecksum;
      crc.reset();
      crc.update(dst, offset + at, Math.min(bytesPerChecksum, count - at));
      if ((int) crc.getValue() != sumBytes.getInt(4 * i)) {
        from = position + at;
        to = Math.min(from + bytesPerChecksum, length);
        break;
      }
    }
    return new IOException(
        "'"
            + path
            + "': bytes "
            + from
            + " to "
            + to
            + " do not match their checksum in '"
            + sumsPath
            + "' (expected: an undamaged file; restore or rewrite it)");
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long at = position;
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, at);
      if (n < 0) {
        throw new EOFException(
            "a read of "
                + buffer.remaining()
                + " bytes past the end ("
                + channel.size()
                + " bytes), from byte "
                + at);
      }
      at += n;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      data.close();
    } finally {
      if (sums != null) {
        sums.close();
      }
    }
  }
}
