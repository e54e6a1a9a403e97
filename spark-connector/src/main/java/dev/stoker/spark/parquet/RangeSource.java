package dev.stoker.spark.parquet;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ExecutionException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Reads byte ranges of one file of a Hadoop file system, each on a stream of its own so that
 * several are read at once. The stream is opened with the file's status, which spares an object
 * store a request for it and lets it refuse an object that changed since (s3a checks the ETag), and
 * for random reads: one request per range, nothing read past it.
 */
final class RangeSource {
  /** Hadoop's option of {@code openFile} that names the read policy. */
  private static final String READ_POLICY = "fs.option.openfile.read.policy";

  /** s3a's name of that option in the Hadoop lines before it was shared. */
  private static final String S3A_FADVISE = "fs.s3a.experimental.input.fadvise";

  private final FileSystem fs;
  private final FileStatus status;

  RangeSource(FileSystem fs, FileStatus status) {
    this.fs = fs;
    this.status = status;
  }

  /** The file's path. */
  Path path() {
    return status.getPath();
  }

  /** The file's length as listed. */
  long length() {
    return status.getLen();
  }

  /** Reads bytes {@code [position, position + length)} into {@code dst} from {@code offset}. */
  void read(long position, byte[] dst, int offset, int length) throws IOException {
    try (FSDataInputStream in = open()) {
      in.readFully(position, dst, offset, length);
    }
  }

  private FSDataInputStream open() throws IOException {
    try {
      return fs.openFile(status.getPath())
          .withFileStatus(status)
          .opt(READ_POLICY, "random")
          .opt(S3A_FADVISE, "random")
          .build()
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted opening " + status.getPath());
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof Error error) {
        throw error; // not tried again; its reader names it
      }
      throw new IOException("opening " + status.getPath() + " failed: " + cause, cause);
    }
  }

  /**
   * Whether a read that failed with {@code error} may succeed if tried again: not when the file is
   * gone, shorter than asked, or changed (no retry mends those), nor when interrupted (a timeout,
   * which is an interruption too in Java's words, may).
   */
  static boolean retryable(IOException error) {
    if (error instanceof FileNotFoundException
        || error instanceof EOFException
        || error.getClass() == InterruptedIOException.class
        || Thread.currentThread().isInterrupted()) {
      return false;
    }
    return !changed(error);
  }

  /** Whether {@code error} is s3a's for an object whose ETag or version changed since listed. */
  static boolean changed(IOException error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t.getClass().getSimpleName().equals("RemoteFileChangedException")) {
        return true;
      }
    }
    return false;
  }
}
