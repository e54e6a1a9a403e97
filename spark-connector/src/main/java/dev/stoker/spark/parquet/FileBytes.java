package dev.stoker.spark.parquet;

import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.io.InputFile;
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

  /** The file's length in bytes. */
  long length();

  /** Reads bytes {@code [position, position + length)} into {@code dst} from {@code offset}. */
  void readFully(long position, byte[] dst, int offset, int length) throws IOException;

  /** The bytes of {@code file} at {@code path}: read directly when it is local, else streamed. */
  static FileBytes open(InputFile file, Path path, Configuration conf) throws IOException {
    FileBytes local = LocalFileBytes.open(path, conf);
    return local != null ? local : of(file.newStream(), file.getLength());
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
