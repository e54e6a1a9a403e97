package dev.stoker.loader.memory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Host memory in one file of a shared-memory folder (such as {@code /dev/shm}), mapped once at its
 * full size, so that another process mapping the same file sees every block at the same offset
 * ({@link #offsetOf}) without a copy. Blocks are 64-byte aligned ranges handed out front to back; a
 * closed block's range is reused for a later block of the same size (a slot pool's blocks are all
 * one size).
 *
 * <p>The mapping is released only when no view of it is reachable, so a view kept past its time can
 * show another block's data but never unmapped memory. {@link #close()} deletes the file (processes
 * that mapped it keep their mapping); files of processes that died are removed by {@link
 * #removeStale}. The file is readable and writable by its owner only.
 */
public final class SharedFileAllocator implements HostAllocator {
  /**
   * How every file of this allocator's name starts: the prefix, the creating process's id, a dash.
   */
  public static final String PREFIX = "stoker-shm-";

  /** The largest file: one mapping, addressed by an int. */
  public static final long MAX_CAPACITY = Integer.MAX_VALUE & -64L;

  private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-.*");
  private static final int ALIGNMENT = 64;

  /** The zeros written at a time while a new file takes its pages. */
  private static final int ZEROS_BYTES = 1 << 20;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final String name;
  private final Path path;
  private final MappedByteBuffer mapping;
  private final long base;
  private final AllocationLedger ledger;
  private final Map<Integer, ArrayDeque<Integer>> freeRanges = new HashMap<>();
  private int next;
  private boolean closed;

  private SharedFileAllocator(String name, Path path, MappedByteBuffer mapping, long capacity) {
    this.name = name;
    this.path = path;
    this.mapping = mapping;
    this.base = NativeAddress.of(mapping);
    this.ledger = new AllocationLedger(name, capacity);
  }

  /**
   * A new file of {@code capacity} bytes in {@code dir}, mapped, every page of it written (with
   * zeros) before it is mapped. A file only sized would take its pages as they are first written:
   * if the folder filled up meanwhile, that write would fault, and the JVM reports such a fault
   * later than the write, so a batch could be handed on before its error, and the other process
   * would fault on the same page. Written up front, a full folder is an error here, once.
   *
   * @throws IllegalArgumentException if {@code capacity} is not in {@code (0, MAX_CAPACITY]}
   * @throws IllegalStateException if {@code dir} has less room than {@code capacity}, or runs out
   *     of it while the file is written, naming the folder, the figures and the remedy
   * @throws UncheckedIOException if the file cannot be made or mapped
   */
  public static SharedFileAllocator create(Path dir, String name, long capacity) {
    if (capacity <= 0 || capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException(
          "allocator '"
              + name
              + "' capacity: "
              + capacity
              + " (expected: 0 < capacity <= "
              + MAX_CAPACITY
              + ")");
    }
    long aligned = (capacity + ALIGNMENT - 1) & -ALIGNMENT;
    try {
      long room = Files.getFileStore(dir).getUsableSpace();
      if (room < aligned) {
        throw noRoom(name, dir, "has " + room + " bytes free, " + aligned + " bytes needed");
      }
      Path path =
          dir.resolve(
              PREFIX
                  + ProcessHandle.current().pid()
                  + "-"
                  + HexFormat.of().formatHex(RANDOM.generateSeed(8)));
      Files.createFile(
          path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      try (FileChannel channel =
          FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        writeZeros(channel, aligned, name, dir);
        MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, aligned);
        return new SharedFileAllocator(name, path, mapping, aligned);
      } catch (IOException | RuntimeException | Error e) {
        Files.deleteIfExists(path);
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "allocator '"
              + name
              + "': cannot map a file of "
              + aligned
              + " bytes in "
              + dir
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** Writes {@code bytes} zeros at the start of {@code channel}'s file, so it owns its pages. */
  private static void writeZeros(FileChannel channel, long bytes, String name, Path dir)
      throws IOException {
    ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(bytes, ZEROS_BYTES));
    long at = 0;
    try {
      while (at < bytes) {
        zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
        at += channel.write(zeros, at);
      }
    } catch (IOException e) {
      long room;
      try {
        room = Files.getFileStore(dir).getUsableSpace();
      } catch (IOException unknown) {
        room = -1;
      }
      IllegalStateException full =
          noRoom(
              name,
              dir,
              "ran out of room after "
                  + at
                  + " of "
                  + bytes
                  + " bytes ("
                  + (room < 0 ? "its free space unknown" : room + " bytes free")
                  + " now)");
      full.initCause(e);
      throw full;
    }
  }

  private static IllegalStateException noRoom(String name, Path dir, String what) {
    return new IllegalStateException(
        String.format(
            "allocator '%s': %s %s (mount a larger %s, or "
                + "lower maxHostBytes, batchSize or prefetchFactor)",
            name, dir, what, dir));
  }

  /**
   * Deletes the files of this allocator's name in {@code dir} whose process has ended (a process
   * killed before it could close its allocator).
   *
   * @return how many were deleted
   */
  public static int removeStale(Path dir) {
    int removed = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
      for (Path file : files) {
        Matcher matcher = NAME.matcher(file.getFileName().toString());
        if (matcher.matches() && !alive(matcher.group(1)) && Files.deleteIfExists(file)) {
          removed++;
        }
      }
    } catch (IOException e) {
      // Another process may be cleaning too; stale files are tried again next time.
    }
    return removed;
  }

  private static boolean alive(String pid) {
    try {
      return ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
    } catch (NumberFormatException e) {
      return true; // not a file of ours to judge
    }
  }

  /** The mapped file; gone once the allocator is closed. */
  public Path path() {
    return path;
  }

  /** Bytes of the file. */
  public long capacity() {
    return ledger.limit();
  }

  /**
   * Where {@code block}'s first byte is in the file.
   *
   * @throws IllegalArgumentException if the block is not this allocator's
   */
  public long offsetOf(HostMemory block) {
    long offset = block.address() - base;
    if (!(block instanceof SharedBlock) || offset < 0 || offset + block.size() > capacity()) {
      throw new IllegalArgumentException(
          "block of "
              + block.size()
              + " bytes at address "
              + block.address()
              + " is not in allocator '"
              + name
              + "' ("
              + path
              + ")");
    }
    return offset;
  }

  /**
   * Where the first byte of {@code view}, a view of one of this allocator's blocks (such as a
   * batch's {@code buffer()}), is in the file.
   *
   * @throws IllegalArgumentException if the view is not of this allocator's memory
   */
  public long offsetOf(ByteBuffer view) {
    long offset = NativeAddress.of(view) - base;
    if (!view.isDirect() || offset < 0 || offset + view.capacity() > capacity()) {
      throw new IllegalArgumentException(
          "buffer of "
              + view.capacity()
              + " bytes is not in "
              + "allocator '"
              + name
              + "' ("
              + path
              + ")");
    }
    return offset;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean pinned() {
    return false;
  }

  @Override
  public long limit() {
    return ledger.limit();
  }

  @Override
  public long allocatedBytes() {
    return ledger.reserved();
  }

  @Override
  public HostMemory allocate(int bytes) {
    if (bytes <= 0 || bytes > MAX_CAPACITY) {
      throw new IllegalArgumentException(
          "bytes: " + bytes + " (expected: 0 < bytes <= " + MAX_CAPACITY + ")");
    }
    int size = (int) ((bytes + ALIGNMENT - 1L) & -ALIGNMENT);
    int offset;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("host allocator '" + name + "' is closed");
      }
      ledger.reserve(size);
      ArrayDeque<Integer> free = freeRanges.get(size);
      if (free != null && !free.isEmpty()) {
        offset = free.pop();
      } else if (size <= capacity() - next) {
        offset = next;
        next += size;
      } else {
        ledger.unreserve(size);
        throw new OutOfMemoryError(
            String.format(
                "host allocator '%s': no free range of %d bytes "
                    + "in %s (%d bytes, %d in use); raise maxHostBytes or use smaller batches",
                name, size, path, capacity(), ledger.reserved()));
      }
    }
    ByteBuffer slice = mapping.slice(offset, bytes);
    return new SharedBlock(this, slice, base + offset, offset, size);
  }

  private synchronized void release(int offset, int size) {
    ledger.closed(size);
    ledger.freed(size);
    if (ledger.reserved() == 0) {
      freeRanges.clear(); // nothing out: the whole file is free again
      next = 0;
    } else if (offset + size == next) {
      next = offset;
    } else {
      freeRanges.computeIfAbsent(size, s -> new ArrayDeque<>()).push(offset);
    }
  }

  /**
   * Deletes the file and stops allocating; safe to call twice.
   *
   * @throws IllegalStateException if blocks are still open, naming the allocator and the bytes
   * @throws UncheckedIOException if the file cannot be deleted
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new UncheckedIOException("allocator '" + name + "': cannot delete " + path, e);
    }
    ledger.checkNothingOpen();
  }

  @Override
  public String toString() {
    return String.format(
        "SharedFileAllocator[%s, %s, %d of %d bytes allocated]",
        name, path, ledger.reserved(), ledger.limit());
  }

  /** A range of the file; its range is free again as soon as its owner closes it. */
  private static final class SharedBlock extends HostMemory {
    private final SharedFileAllocator allocator;
    private final int offset;
    private final int size;

    SharedBlock(
        SharedFileAllocator allocator, ByteBuffer slice, long address, int offset, int size) {
      super(slice, slice, address, () -> {});
      this.allocator = allocator;
      this.offset = offset;
      this.size = size;
    }

    @Override
    protected void onClosed() {
      allocator.release(offset, size);
    }
  }
}
