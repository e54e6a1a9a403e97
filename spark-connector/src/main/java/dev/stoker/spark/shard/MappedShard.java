package dev.stoker.spark.shard;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The column files of a rank's shard, mapped read-only in segments of whole rows (at most 1 GiB
 * each), so that a row is one absolute read. Reads are safe from any number of threads. {@link
 * #release()} unmaps at once; call it only when no thread can read any more (the loader closed
 * cleanly), else leave the mapping to the garbage collector.
 *
 * <p>A mapped file that shrinks under its mapping (another process truncating it) makes a read of
 * the lost pages fault: the JVM reports that as an {@link InternalError}, which Spark takes for a
 * dying JVM. The shard's readers turn such an error into {@link #faulted}'s {@link
 * ShardChangedException}, which names the file that changed. The JVM may report the fault of a
 * compiled read only later, elsewhere in the reading thread: {@link #check}, called after each
 * batch, makes it surface there, before the batch leaves the dataset's code.
 */
public final class MappedShard {
  private static final long SEGMENT_BYTES = 1L << 30;

  /** How often {@link #check} compares the files' sizes with the mapped ones: 10 ms. */
  private static final long SIZE_CHECK_NANOS = 10_000_000L;

  private static final sun.misc.Unsafe UNSAFE = findUnsafe();

  private final ShardFiles files;
  private final ShardLayout layout;
  private final long rows;
  private final int[] rowsPerSegment;
  private final ByteBuffer[][] segments;
  private final long[] fileBytes;
  private volatile ShardChangedException changed;
  private boolean released;

  /** When {@link #check} last compared the files' sizes with the mapped ones. */
  private volatile long sizesCheckedAt = System.nanoTime();

  /** The size of {@link #check}'s array: not final, so that no compiler knows it. */
  private static int one = 1;

  /** {@link #check}'s array: kept, so that no compiler drops it; never read. */
  @SuppressWarnings("unused")
  private static Object probe;

  private MappedShard(
      ShardFiles files,
      ShardLayout layout,
      long rows,
      int[] rowsPerSegment,
      ByteBuffer[][] segments,
      long[] fileBytes) {
    this.files = files;
    this.layout = layout;
    this.rows = rows;
    this.rowsPerSegment = rowsPerSegment;
    this.segments = segments;
    this.fileBytes = fileBytes;
  }

  static MappedShard map(ShardFiles files, ShardLayout layout, FileChannel[] channels, long rows)
      throws IOException {
    int columns = layout.columns();
    long[] fileBytes = new long[columns];
    for (int c = 0; c < columns; c++) {
      fileBytes[c] = channels[c].size();
      long needed = rows * layout.rowBytes(c);
      if (fileBytes[c] < needed) {
        throw new IOException(
            String.format(
                "shard file %s changed before it was mapped: %d "
                    + "bytes, %d expected for %d rows (%s)",
                files.columnFile(c, layout.name(c)), fileBytes[c], needed, rows, REMEDY));
      }
    }
    int[] perSegment = new int[columns];
    ByteBuffer[][] segments = new ByteBuffer[columns][];
    for (int c = 0; c < columns; c++) {
      int rowBytes = layout.rowBytes(c);
      perSegment[c] = (int) Math.max(1, SEGMENT_BYTES / rowBytes);
      int count = (int) Math.max(1, (rows + perSegment[c] - 1) / perSegment[c]);
      segments[c] = new ByteBuffer[count];
      for (int s = 0; s < count; s++) {
        long first = (long) s * perSegment[c];
        long segmentRows = Math.min(perSegment[c], rows - first);
        segments[c][s] =
            channels[c].map(
                FileChannel.MapMode.READ_ONLY,
                first * rowBytes,
                Math.max(0, segmentRows) * rowBytes);
      }
    }
    return new MappedShard(files, layout, rows, perSegment, segments, fileBytes);
  }

  /** What a user can do about a shard file that changed under its rank. */
  private static final String REMEDY =
      "expected: the shard's files left alone while its rank "
          + "runs; keep other processes and cleanup jobs out of shardDir, or set shardDir to a "
          + "folder of its own";

  /**
   * The error to report for {@code fault}, a read of the mapping that failed ({@code InternalError:
   * a fault occurred in a recent unsafe memory access operation}): names each column file whose
   * size is no longer the one mapped, or else the read failure of the disk. {@code fault} is null
   * where a size check found the change. Does not keep {@code fault} as its cause: Spark ends an
   * executor whose task failed with an {@code InternalError} anywhere in its causes.
   */
  public ShardChangedException faulted(Throwable fault) {
    ShardChangedException report = report(fault);
    if (changed == null) {
      changed = report;
    }
    return report;
  }

  /**
   * The first {@link #faulted} report, or null: a read that failed counts even where the loader
   * skipped its sample ({@code onBadSample=skip}) and the rank went on.
   */
  public ShardChangedException changed() {
    return changed;
  }

  private ShardChangedException report(Throwable fault) {
    List<String> changed = new ArrayList<>();
    for (int c = 0; c < fileBytes.length; c++) {
      Path file = files.columnFile(c, layout.name(c));
      long now;
      try {
        now = Files.size(file);
      } catch (IOException e) {
        now = -1;
      }
      if (now != fileBytes[c]) {
        changed.add(
            String.format(
                "shard file %s changed while mapped: %s, %d bytes expected",
                file, now < 0 ? "gone" : now + " bytes", fileBytes[c]));
      }
    }
    if (changed.isEmpty()) {
      return new ShardChangedException(
          String.format(
              "shard in %s: a read of its mapped files "
                  + "failed (%s), though their sizes are as mapped: a read error of the disk? (expected: "
                  + "a readable local disk; check the disk, or set shardDir to another one)",
              files, fault));
    }
    return new ShardChangedException(String.join("; ", changed) + " (" + REMEDY + ")");
  }

  /**
   * Makes the JVM report now a fault of the calling thread's earlier reads of the mapping, then
   * checks every column file's size against the one mapped (at most every {@link
   * #SIZE_CHECK_NANOS}: a stat costs a microsecond or two): throws the {@link #faulted} report if a
   * read faulted or a file changed. One call per batch, not per sample.
   *
   * <p>HotSpot reports a fault in a compiled read (an intrinsic copy) not where it happened but at
   * the thread's next return from a call into the VM's runtime, which may come much later, anywhere
   * in the loader's code (a native call is no such return on JDK 17). Making an array of two
   * dimensions, one of them unknown to the compiler, is such a call in the interpreter and both
   * compilers, so the fault is reported inside this method's {@code try}.
   */
  public void check() throws ShardChangedException {
    boolean same = true;
    try {
      probe = new byte[one][0];
      long now = System.nanoTime();
      if (now - sizesCheckedAt >= SIZE_CHECK_NANOS) {
        sizesCheckedAt = now;
        for (int c = 0; c < fileBytes.length && same; c++) {
          same = size(files.columnFile(c, layout.name(c))) == fileBytes[c];
        }
      }
    } catch (InternalError e) {
      if (isMappedFault(e)) {
        throw faulted(e);
      }
      throw e;
    }
    if (!same) {
      throw faulted(null);
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return -1;
    }
  }

  /** Whether {@code t} is the JVM's report of a fault in a read of a mapped file. */
  public static boolean isMappedFault(Throwable t) {
    return t instanceof InternalError
        && String.valueOf(t.getMessage()).contains("unsafe memory access");
  }

  public long rows() {
    return rows;
  }

  public ShardLayout layout() {
    return layout;
  }

  public ShardFiles files() {
    return files;
  }

  /** Bytes mapped over all columns. */
  public long bytes() {
    return rows * layout.rowBytes();
  }

  /** The segment holding {@code row} of {@code column}. */
  public ByteBuffer segment(int column, long row) {
    return segments[column][(int) (row / rowsPerSegment[column])];
  }

  /** Every segment of {@code column}, in row order (not a copy: read-only buffers). */
  public ByteBuffer[] segments(int column) {
    return segments[column];
  }

  /** The index in {@link #segments} of the segment holding {@code row} of {@code column}. */
  public int segmentIndex(int column, long row) {
    return (int) (row / rowsPerSegment[column]);
  }

  /** The byte offset of {@code row} of {@code column} in its {@link #segment}. */
  public int offset(int column, long row) {
    return (int) (row % rowsPerSegment[column]) * layout.rowBytes(column);
  }

  /** Unmaps every segment now; later reads would crash the JVM, so only with no reader left. */
  public synchronized void release() {
    if (released) {
      return;
    }
    released = true;
    if (UNSAFE == null) {
      return; // the garbage collector unmaps them in its own time
    }
    for (ByteBuffer[] column : segments) {
      for (ByteBuffer segment : column) {
        if (segment instanceof MappedByteBuffer && segment.capacity() > 0) {
          UNSAFE.invokeCleaner(segment);
        }
      }
    }
  }

  private static sun.misc.Unsafe findUnsafe() {
    try {
      Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      return (sun.misc.Unsafe) field.get(null);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
