package dev.stoker.spark.shard;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;

/**
 * Writes blocks into a rank's column files at their rows, in any order, within a byte budget,
 * through the file system (a full disk is an {@code IOException}, never a crash), and then maps the
 * files for reading. Used by one thread.
 */
public final class ShardWriter implements AutoCloseable {
  /** How much growth is allowed between two checks of the free disk space. */
  private static final long DISK_CHECK_STEP = 256L << 20;

  private final ShardFiles files;
  private final ShardLayout layout;
  private final long budget;
  private final String owner;
  private final FileChannel[] channels;
  private long rowsWritten;
  private long extent;
  private long checkedUpTo;

  /**
   * Column files for {@code layout} in {@code files}, holding at most {@code budget} bytes. {@code
   * owner} names the shard in messages, e.g. {@code rank 1}.
   */
  public ShardWriter(ShardFiles files, ShardLayout layout, long budget, String owner)
      throws IOException {
    this.files = files;
    this.layout = layout;
    this.budget = budget;
    this.owner = owner;
    this.channels = new FileChannel[layout.columns()];
    try {
      for (int c = 0; c < channels.length; c++) {
        channels[c] = files.createColumnFile(c, layout.name(c));
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Checks that {@code rows} rows fit the budget and, before any is written, the free space of the
   * disk: for a shard whose size is known in advance.
   */
  public void reserve(long rows) throws IOException {
    checkBudget(rows);
    long bytes = Math.multiplyExact(rows, layout.rowBytes());
    checkDisk(bytes);
    checkedUpTo = Math.max(checkedUpTo, bytes);
  }

  /** Writes the rows of {@code block} at their place. */
  public void write(ShardBlock block) throws IOException {
    ByteBuffer[] columns = new ByteBuffer[channels.length];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = ByteBuffer.wrap(block.column(c));
    }
    write(block.firstRow(), block.rows(), columns);
  }

  /**
   * Writes rows {@code firstRow .. firstRow + rows - 1}, column {@code c} from byte 0 of {@code
   * columns[c]} (positions and limits are ignored and left as they are). Direct buffers go to the
   * file without another copy.
   */
  public void write(long firstRow, int rows, ByteBuffer[] columns) throws IOException {
    long end = firstRow + rows;
    checkBudget(end);
    long bytes = end * layout.rowBytes();
    if (bytes > checkedUpTo) {
      checkDisk(bytes - extent * layout.rowBytes() + DISK_CHECK_STEP);
      checkedUpTo = bytes + DISK_CHECK_STEP;
    }
    for (int c = 0; c < channels.length; c++) {
      int rowBytes = layout.rowBytes(c);
      ByteBuffer data = columns[c].duplicate().position(0).limit(rows * rowBytes);
      long position = firstRow * rowBytes;
      while (data.hasRemaining()) {
        position += channels[c].write(data, position);
      }
    }
    rowsWritten += rows;
    extent = Math.max(extent, end);
  }

  /** Rows written, counting a row written twice twice. */
  public long rowsWritten() {
    return rowsWritten;
  }

  /** One past the highest row written. */
  public long extent() {
    return extent;
  }

  /** Bytes the shard holds so far. */
  public long bytes() {
    return extent * layout.rowBytes();
  }

  /**
   * Maps rows {@code 0 .. rows - 1} of every column for reading and closes the files; the mapping
   * stays valid until it is released.
   */
  public MappedShard map(long rows) throws IOException {
    if (rows > extent) {
      throw new IllegalStateException(
          owner + ": mapping " + rows + " rows of a shard of " + extent);
    }
    MappedShard shard = MappedShard.map(files, layout, channels, rows);
    close();
    return shard;
  }

  private void checkBudget(long rows) {
    long bytes;
    try {
      bytes = Math.multiplyExact(rows, layout.rowBytes());
    } catch (ArithmeticException e) {
      bytes = Long.MAX_VALUE;
    }
    if (bytes > budget) {
      throw new ShardBudgetException(
          String.format(
              "shard of %s: %d rows x %d bytes = %s "
                  + "(expected: at most maxShardBytes = %s; raise maxShardBytes, use more ranks or "
                  + "fewer columns)",
              owner, rows, layout.rowBytes(), Sizes.text(bytes), Sizes.text(budget)));
    }
  }

  private void checkDisk(long needed) throws IOException {
    long free = Files.getFileStore(files.folder()).getUsableSpace();
    if (free < needed) {
      throw new ShardBudgetException(
          String.format(
              "shard of %s: %s more needed in %s but %s "
                  + "is free there (expected: room for the shard; set shardDir to a larger local disk or "
                  + "use more ranks)",
              owner, Sizes.text(needed), files.folder(), Sizes.text(free)));
    }
  }

  /** Closes the files; the folder stays until {@link ShardFiles#delete()}. */
  @Override
  public void close() throws IOException {
    IOException failure = null;
    for (FileChannel channel : channels) {
      if (channel == null) {
        continue;
      }
      try {
        channel.close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
