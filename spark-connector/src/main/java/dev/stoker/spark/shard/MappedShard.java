package dev.stoker.spark.shard;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The column files of a rank's shard, mapped read-only in segments of whole rows (at most 1 GiB
 * each), so that a row is one absolute read. Reads are safe from any number of threads.
 * {@link #release()} unmaps at once; call it only when no thread can read any more (the loader
 * closed cleanly), else leave the mapping to the garbage collector.
 */
public final class MappedShard {
  private static final long SEGMENT_BYTES = 1L << 30;
  private static final sun.misc.Unsafe UNSAFE = findUnsafe();

  private final ShardFiles files;
  private final ShardLayout layout;
  private final long rows;
  private final int[] rowsPerSegment;
  private final ByteBuffer[][] segments;
  private boolean released;

  private MappedShard(ShardFiles files, ShardLayout layout, long rows, int[] rowsPerSegment,
      ByteBuffer[][] segments) {
    this.files = files;
    this.layout = layout;
    this.rows = rows;
    this.rowsPerSegment = rowsPerSegment;
    this.segments = segments;
  }

  static MappedShard map(ShardFiles files, ShardLayout layout, FileChannel[] channels, long rows)
      throws IOException {
    int columns = layout.columns();
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
        segments[c][s] = channels[c].map(FileChannel.MapMode.READ_ONLY, first * rowBytes,
            Math.max(0, segmentRows) * rowBytes);
      }
    }
    return new MappedShard(files, layout, rows, perSegment, segments);
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
  ByteBuffer segment(int column, long row) {
    return segments[column][(int) (row / rowsPerSegment[column])];
  }

  /** Every segment of {@code column}, in row order (not a copy: read-only buffers). */
  ByteBuffer[] segments(int column) {
    return segments[column];
  }

  /** The index in {@link #segments} of the segment holding {@code row} of {@code column}. */
  int segmentIndex(int column, long row) {
    return (int) (row / rowsPerSegment[column]);
  }

  /** The byte offset of {@code row} of {@code column} in its {@link #segment}. */
  int offset(int column, long row) {
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
