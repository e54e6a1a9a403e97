package dev.stoker.spark.shard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The folder of one rank's shard: one file per column. {@link #delete()} removes it with
 * everything in it, once, from any thread (the rank's end, its task's completion listener).
 */
public final class ShardFiles {
  private final Path folder;
  private boolean deleted;

  private ShardFiles(Path folder) {
    this.folder = folder;
  }

  /** Makes a new, empty folder {@code name} in {@code parent}, creating the parent if needed. */
  public static ShardFiles create(Path parent, String name) throws IOException {
    Files.createDirectories(parent);
    return new ShardFiles(Files.createDirectory(parent.resolve(name)));
  }

  public Path folder() {
    return folder;
  }

  /** The file of column {@code column} named {@code name}. */
  Path columnFile(int column, String name) {
    return folder.resolve(column + "-" + name.replaceAll("[^A-Za-z0-9_.-]", "_") + ".col");
  }

  /** Removes the folder and its files; a second call does nothing. */
  public synchronized void delete() {
    if (deleted) {
      return;
    }
    deleted = true;
    if (!Files.exists(folder)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("shard folder " + folder + ": could not be removed", e);
    }
  }

  public synchronized boolean isDeleted() {
    return deleted;
  }

  @Override
  public String toString() {
    return folder.toString();
  }
}
