package dev.stoker.spark.parquet;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.io.SeekableInputStream;

/**
 * The bytes of a file, read by position into arrays: what {@link ColumnPages} reads its windows
 * from. Reads start at a multiple of {@link #alignment()} and end at one or at the file's end.
 */
public interface FileBytes extends Closeable {
  /**
   * Hadoop's bytes per checksum for a local file with a checksum file ({@link LocalFileBytes}),
   * else 1.
   */
  int alignment();

  /**
   * Whether every byte a read returns was checked against the checksums the file system keeps for
   * it (Hadoop's checksum file beside a local file, a sum every 512 bytes, written from the same
   * bytes the writer wrote): a Parquet page checksum over those bytes then finds nothing more.
   */
  default boolean verifiesEveryByte() {
    return false;
  }

  /** The file's length in bytes. */
  long length();

  /** Reads bytes {@code [position, position + length)} into {@code dst} from {@code offset}. */
  void readFully(long position, byte[] dst, int offset, int length) throws IOException;

  /**
   * The bytes of the file listed as {@code status}, of which the reader will read the column chunks
   * {@code groups} (each list one row group's, in the order they are read): read directly when it
   * is on a local disk, else fetched ahead by coalesced requests ({@link RemoteFileBytes}), the
   * time the reader waits for them added to {@code waited} (may be null).
   */
  static FileBytes open(
      FileStatus status, Configuration conf, List<List<FileRange>> groups, LongAdder waited)
      throws IOException {
    FileBytes local = LocalFileBytes.open(status.getPath(), conf);
    if (local != null) {
      return local;
    }
    StorageReads settings = StorageReads.of(conf);
    FileSystem fs = status.getPath().getFileSystem(conf);
    return new RemoteFileBytes(
        new RangeSource(fs, status),
        RangePlan.of(groups, settings.coalesceGapBytes(), settings.requestBytes()),
        settings,
        StorageReads.threads(conf),
        waited);
  }

  /** The bytes of an open stream of {@code length} bytes (closed with it). */
  static FileBytes of(SeekableInputStream in, long length) {
    return new FileBytes() {
      /**
       * Bytes asked of the stream at once: Hadoop's local streams copy every read through a native
       * buffer of its size, which costs fresh memory for large reads.
       */
      private static final int READ_BYTES = 64 << 10;

      @Override
      public int alignment() {
        return 1;
      }

      @Override
      public long length() {
        return length;
      }

      @Override
      public void readFully(long position, byte[] dst, int offset, int count) throws IOException {
        in.seek(position);
        for (int at = 0; at < count; at += READ_BYTES) {
          in.readFully(dst, offset + at, Math.min(READ_BYTES, count - at));
        }
      }

      @Override
      public void close() throws IOException {
        in.close();
      }
    };
  }
}
