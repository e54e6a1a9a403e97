package dev.stoker.spark.run;

import dev.stoker.spark.shard.ShardFiles;
import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.SparkEnv;

/**
 * Where a rank caches its shard: the folder the user named, else a {@code stoker} folder in one of
 * the executor's Spark local directories (spark.local.dir, SPARK_LOCAL_DIRS or the cluster
 * manager's, as the block manager uses them; Spark removes them when the executor stops), else the
 * JVM's temporary folder. Ranks on one executor spread over its directories.
 *
 * <p>An executor killed outright (SIGKILL: preempted, out of memory) leaves its directories until
 * the application ends; {@link #sweep} removes the shards in them whose process died: those of the
 * other executors' directories beside this one's ({@code blockmgr-*} folders of one parent, as the
 * standalone worker and YARN lay them out), or in the user's shardDir, and in the memory tier's
 * folder ({@link MemoryTier}).
 */
public final class LocalDirs {
  private LocalDirs() {}

  static Path forRank(String shardDir, int rank) {
    if (shardDir != null) {
      return Path.of(shardDir);
    }
    try {
      File[] dirs = SparkEnv.get().blockManager().diskBlockManager().localDirs();
      if (dirs.length > 0) {
        return dirs[rank % dirs.length].toPath().resolve("stoker");
      }
    } catch (RuntimeException | LinkageError e) {
      // not an executor we know: the temporary folder will do
    }
    return Path.of(System.getProperty("java.io.tmpdir"), "stoker");
  }

  /** Removes the shards of dead processes where this executor's ranks keep theirs. */
  static List<Path> sweep(String shardDir) {
    List<Path> removed = new ArrayList<>();
    for (Path root : roots(shardDir)) {
      removed.addAll(ShardFiles.sweep(root));
    }
    return removed;
  }

  private static Set<Path> roots(String shardDir) {
    Set<Path> roots = new LinkedHashSet<>();
    roots.add(MemoryTier.root()); // the memory tier's, whatever shardDir says
    if (shardDir != null) {
      roots.add(Path.of(shardDir));
      return roots;
    }
    File[] dirs;
    try {
      dirs = SparkEnv.get().blockManager().diskBlockManager().localDirs();
    } catch (RuntimeException | LinkageError e) {
      dirs = new File[0];
    }
    for (File dir : dirs) {
      Path own = dir.toPath().toAbsolutePath();
      roots.add(own.resolve("stoker"));
      Path parent = own.getParent();
      if (parent == null) {
        continue;
      }
      try (DirectoryStream<Path> siblings = Files.newDirectoryStream(parent, "blockmgr-*")) {
        for (Path sibling : siblings) {
          if (Files.isDirectory(sibling, LinkOption.NOFOLLOW_LINKS)) {
            roots.add(sibling.resolve("stoker"));
          }
        }
      } catch (IOException | RuntimeException e) {
        // a parent this process cannot list: its own directory is swept all the same
      }
    }
    if (dirs.length == 0) {
      roots.add(Path.of(System.getProperty("java.io.tmpdir"), "stoker"));
    }
    return roots;
  }
}
