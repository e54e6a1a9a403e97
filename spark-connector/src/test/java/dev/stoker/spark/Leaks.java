package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.SparkEnv;

/**
 * What a run must not leave behind in this JVM (where local[n] runs its ranks): a rank's threads
 * (its loader's and its watcher), or a shard folder in Spark's local directories.
 */
public final class Leaks {
  private Leaks() {}

  static List<String> rankThreads() {
    List<String> names = new ArrayList<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.isAlive() && thread.getName().contains("-rank")) {
        names.add(thread.getName());
      }
    }
    return names;
  }

  public static void assertNoRankThreads() throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!rankThreads().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(rankThreads()).as("threads of ranks still running").isEmpty();
  }

  /** The shard folders in this JVM's Spark local directories. */
  static List<Path> shardFolders() {
    List<Path> found = new ArrayList<>();
    for (File dir : SparkEnv.get().blockManager().diskBlockManager().localDirs()) {
      Path stoker = dir.toPath().resolve("stoker");
      if (Files.isDirectory(stoker)) {
        try (Stream<Path> shards = Files.list(stoker)) {
          shards.forEach(found::add);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return found;
  }

  /** Waits a little for tasks killed when their job failed, which end on their own time. */
  public static void assertNoShards() throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!shardFolders().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(shardFolders()).as("shard folders left").isEmpty();
  }
}
