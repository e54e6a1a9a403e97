package dev.stoker.spark.shard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The folder of one rank's shard: one file per column, readable by its owner only (folder 700,
 * files 600, so from their creation). While the shard lives, its owner holds an exclusive lock on
 * the folder's lock file; the operating system lets go of it when the process dies, however it
 * dies, so that {@link #sweep} can tell the shards of dead processes from live ones. {@link
 * #delete()} removes the folder with everything in it, once, from any thread (the rank's end, its
 * task's completion listener).
 */
public final class ShardFiles {
  /** How a shard folder's name starts. */
  public static final String PREFIX = "shard-";

  /** The file in a shard folder whose lock its live owner holds: the mark of Stoker's folders. */
  static final String LOCK_FILE = ".stoker-shard.lock";

  private static final String STAGING = ".staging-";

  /** How old a staging folder must be before a sweep may remove it. */
  static final long STAGING_GRACE_MILLIS = 60_000;

  private static final Pattern COLUMN_FILE = Pattern.compile("[0-9]+-[A-Za-z0-9_.-]*\\.col");

  /** The folders whose lock this process holds: a process must not test its own locks. */
  private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

  private final Path folder;
  private final FileChannel lockChannel;
  private boolean deleted;

  private ShardFiles(Path folder, FileChannel lockChannel) {
    this.folder = folder;
    this.lockChannel = lockChannel;
  }

  /**
   * Makes a new, empty folder {@code name} in {@code parent} (creating the parent if needed),
   * owner-only, and takes its lock. The folder is filled and locked under a staging name first, so
   * that a folder named {@code shard-...} is never seen without its owner's lock.
   */
  public static ShardFiles create(Path parent, String name) throws IOException {
    if (!name.startsWith(PREFIX) || name.contains("/") || name.contains("\\")) {
      throw new IllegalArgumentException(
          "shard folder name '"
              + name
              + "' (expected: a name "
              + "starting with '"
              + PREFIX
              + "')");
    }
    Files.createDirectories(parent);
    Path folder = parent.resolve(name);
    Path staging = parent.resolve(STAGING + name);
    Files.createDirectory(staging, ownerOnly(parent, "rwx------"));
    FileChannel channel = null;
    boolean held = false;
    Path stagingKey = key(staging);
    HELD.add(stagingKey); // this process's sweep must not open its lock file: see key()
    try {
      channel =
          FileChannel.open(
              staging.resolve(LOCK_FILE),
              Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
              ownerOnly(parent, "rw-------"));
      if (channel.tryLock() == null) {
        throw new IOException(
            "shard folder "
                + staging
                + ": its new lock file is locked by "
                + "another process (expected: a file no other process knows yet)");
      }
      held = HELD.add(key(folder));
      Files.move(staging, folder);
      return new ShardFiles(folder, channel);
    } catch (IOException | RuntimeException | Error e) {
      if (held) {
        HELD.remove(key(folder));
      }
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException closing) {
          e.addSuppressed(closing);
        }
      }
      try {
        Files.deleteIfExists(staging.resolve(LOCK_FILE));
        Files.deleteIfExists(staging);
      } catch (IOException cleaning) {
        e.addSuppressed(cleaning);
      }
      throw e;
    } finally {
      HELD.remove(stagingKey);
    }
  }

  /** Creates a column file, owner-only from its creation, open for reading and writing. */
  FileChannel createColumnFile(int column, String name) throws IOException {
    Set<OpenOption> options =
        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
    return FileChannel.open(columnFile(column, name), options, ownerOnly(folder, "rw-------"));
  }

  /** The attribute giving {@code permissions} where the file system has POSIX permissions. */
  private static FileAttribute<?>[] ownerOnly(Path place, String permissions) {
    if (!place.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return new FileAttribute<?>[0];
    }
    return new FileAttribute<?>[] {
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(permissions))
    };
  }

  public Path folder() {
    return folder;
  }

  /** The file of column {@code column} named {@code name}. */
  Path columnFile(int column, String name) {
    return folder.resolve(column + "-" + name.replaceAll("[^A-Za-z0-9_.-]", "_") + ".col");
  }

  /** Removes the folder and its files, then lets go of the lock; a second call does nothing. */
  public synchronized void delete() {
    if (deleted) {
      return;
    }
    deleted = true;
    try {
      if (Files.exists(folder)) {
        try (Stream<Path> paths = Files.walk(folder)) {
          for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
            Files.deleteIfExists(path);
          }
        } catch (IOException e) {
          throw new UncheckedIOException("shard folder " + folder + ": could not be removed", e);
        }
      }
    } finally {
      try {
        lockChannel.close();
      } catch (IOException e) {
        // closing a file opened for its lock only: nothing was written to lose
      }
      HELD.remove(key(folder));
    }
  }

  /**
   * The name of {@code folder} in {@link #HELD}: through its parent's real path, so that a folder
   * reached by two paths (a link to its parent) is one. Opening and closing a lock file of its own
   * would let go of this process's lock on it.
   */
  private static Path key(Path folder) {
    Path absolute = folder.toAbsolutePath().normalize();
    Path parent = absolute.getParent();
    try {
      return parent == null ? absolute : parent.toRealPath().resolve(absolute.getFileName());
    } catch (IOException e) {
      return absolute;
    }
  }

  public synchronized boolean isDeleted() {
    return deleted;
  }

  /**
   * Removes the shard folders in {@code parent} whose owner has died: those named {@code shard-...}
   * holding Stoker's lock file that no process holds, and the staging folders ({@code
   * .staging-shard-...}) a process killed in {@link #create} left with their lock file, once they
   * are older than {@link #STAGING_GRACE_MILLIS} (a live {@code create} takes its lock a moment
   * after it made the folder). Anything else is left alone: a live shard, a folder of another name
   * or without the lock file, one this process cannot open, and, in a shard folder, every file that
   * is not Stoker's. Returns the folders removed.
   */
  public static List<Path> sweep(Path parent) {
    List<Path> removed = new ArrayList<>();
    if (!Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
      return removed;
    }
    for (String pattern : new String[] {PREFIX + "*", STAGING + PREFIX + "*"}) {
      try (DirectoryStream<Path> children = Files.newDirectoryStream(parent, pattern)) {
        for (Path child : children) {
          if (child.getFileName().toString().startsWith(STAGING) && !older(child)) {
            continue;
          }
          if (sweepOne(key(child))) {
            removed.add(child);
          }
        }
      } catch (IOException | UncheckedIOException e) {
        // a folder that cannot be listed holds nothing this process could remove
      }
    }
    return removed;
  }

  /** Whether {@code folder} was last changed more than {@link #STAGING_GRACE_MILLIS} ago. */
  private static boolean older(Path folder) {
    try {
      long changed = Files.getLastModifiedTime(folder, LinkOption.NOFOLLOW_LINKS).toMillis();
      return System.currentTimeMillis() - changed > STAGING_GRACE_MILLIS;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean sweepOne(Path folder) {
    if (HELD.contains(folder) || !Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    Path lockFile = folder.resolve(LOCK_FILE);
    if (!Files.isRegularFile(lockFile, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    try (FileChannel channel =
        FileChannel.open(lockFile, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      FileLock lock = channel.tryLock();
      if (lock == null) {
        return false; // its owner lives
      }
      return removeOwnFiles(folder, lockFile);
    } catch (OverlappingFileLockException e) {
      return false; // another thread of this process is sweeping it
    } catch (IOException e) {
      return false; // gone meanwhile, or not ours to open
    }
  }

  /** Deletes the column files and the lock file, then the folder if nothing else is left. */
  private static boolean removeOwnFiles(Path folder, Path lockFile) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(folder)) {
      for (Path file : files) {
        if (COLUMN_FILE.matcher(file.getFileName().toString()).matches()
            && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
          Files.deleteIfExists(file);
        }
      }
    }
    Files.deleteIfExists(lockFile);
    try {
      Files.delete(folder);
      return true;
    } catch (NoSuchFileException e) {
      return true;
    } catch (IOException e) {
      return false; // something that is not Stoker's is in it: left as it is
    }
  }

  @Override
  public String toString() {
    return folder.toString();
  }
}
