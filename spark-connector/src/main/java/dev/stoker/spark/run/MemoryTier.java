package dev.stoker.spark.run;

import dev.stoker.spark.options.SparkOptionTable;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a shard cache lives in memory, and how much of it may: a {@code stoker-<user>} folder in
 * the machine's memory-backed folder ({@code /dev/shm}, a tmpfs), whose files the cache maps as it
 * maps files on disk, so that the epochs after the first read memory and the first writes at memory
 * speed rather than the disk's. Its pages are the machine's memory, outside the JVM: the budget is
 * what the user allows ({@code cacheMemory}), or by default a quarter of the memory free when the
 * rank starts (a container's own limit, as the JVM sees it), never more than the folder can take
 * less a margin. No tmpfs there, or {@code cacheMemory=0}: no memory tier.
 */
final class MemoryTier {
  /** The memory-backed folder of Linux machines. */
  static final Path SHM = Path.of("/dev/shm");

  /** Left free in the folder for others. */
  static final long MARGIN_BYTES = 256L << 20;

  private MemoryTier() {}

  /**
   * The folder memory-tier shards are created in: one per operating-system user ({@code
   * stoker-<user>}), since the folder is shared by every process of the machine and each user's
   * shard folders are theirs alone.
   */
  static Path root() {
    String user = System.getProperty("user.name", "");
    return SHM.resolve("stoker-" + (user.matches("[A-Za-z0-9._-]{1,64}") ? user : "user"));
  }

  /** The bytes of one rank's cache that may live in memory, for option {@code cacheMemory}. */
  static long budget(long cacheMemory) {
    if (cacheMemory == 0 || !Files.isDirectory(SHM) || !Files.isWritable(SHM)) {
      return 0;
    }
    long room;
    try {
      FileStore store = Files.getFileStore(SHM);
      if (!"tmpfs".equals(store.type())) {
        return 0;
      }
      room = store.getUsableSpace() - MARGIN_BYTES;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    long allowed =
        cacheMemory == SparkOptionTable.CACHE_MEMORY_AUTO ? freeMemory() / 4 : cacheMemory;
    return Math.max(0, Math.min(room, allowed));
  }

  /** The memory the machine (or the container) has free now, 0 if the JVM cannot say. */
  private static long freeMemory() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return Math.max(0, sun.getFreeMemorySize());
    }
    return 0;
  }
}
