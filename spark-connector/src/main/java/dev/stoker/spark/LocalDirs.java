package dev.stoker.spark;

import java.io.File;
import java.nio.file.Path;
import org.apache.spark.SparkEnv;

/**
 * Where a rank caches its shard: the folder the user named, else a {@code stoker} folder in one of
 * the executor's Spark local directories (spark.local.dir, SPARK_LOCAL_DIRS or the cluster
 * manager's, as the block manager uses them; Spark removes them when the executor stops), else
 * the JVM's temporary folder. Ranks on one executor spread over its directories.
 */
final class LocalDirs {
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
}
