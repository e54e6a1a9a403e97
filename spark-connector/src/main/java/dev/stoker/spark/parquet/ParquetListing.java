package dev.stoker.spark.parquet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The data files under the paths of a read, listed as Spark lists them: directories recursively,
 * leaving out names that start with {@code _} (unless they hold {@code =}, as partition folders do)
 * or {@code .}, such as {@code _SUCCESS}, {@code _metadata} and {@code .crc} files. Paths may be
 * globs. Files come sorted by path, each once.
 */
public final class ParquetListing {
  private ParquetListing() {}

  static List<FileStatus> list(List<String> paths, Configuration conf) throws IOException {
    TreeMap<String, FileStatus> files = new TreeMap<>();
    for (String given : paths) {
      Path path = new Path(given);
      FileSystem fs = path.getFileSystem(conf);
      FileStatus[] matches = fs.globStatus(path);
      if (matches == null || matches.length == 0) {
        throw new IllegalArgumentException(
            "path '"
                + given
                + "' does not exist (expected: a "
                + "Parquet file or a directory of them on a Hadoop file system, e.g. file:/data/train "
                + "or hdfs://namenode/data/train; check the path)");
      }
      int before = files.size();
      for (FileStatus match : matches) {
        if (match.isDirectory()) {
          addTree(fs, match, files);
        } else {
          files.put(match.getPath().toString(), match);
        }
      }
      if (files.size() == before) {
        throw new IllegalArgumentException(
            "path '"
                + given
                + "' holds no Parquet files (names "
                + "starting with '_' or '.' are not data) (expected: at least one Parquet file; "
                + "check the path)");
      }
    }
    return new ArrayList<>(files.values());
  }

  private static void addTree(FileSystem fs, FileStatus dir, TreeMap<String, FileStatus> files)
      throws IOException {
    for (FileStatus child : fs.listStatus(dir.getPath())) {
      if (isHidden(child.getPath().getName())) {
        continue;
      }
      if (child.isDirectory()) {
        addTree(fs, child, files);
      } else {
        files.put(child.getPath().toString(), child);
      }
    }
  }

  /** Spark's rule for names that are not data. */
  /** The status of each of {@code paths}, files as a scan already listed them. */
  static List<FileStatus> files(List<String> paths, Configuration conf) throws IOException {
    List<FileStatus> files = new ArrayList<>();
    for (String given : paths) {
      Path path = new Path(given);
      files.add(path.getFileSystem(conf).getFileStatus(path));
    }
    return files;
  }

  static boolean isHidden(String name) {
    return name.startsWith("_") && !name.contains("=")
        || name.startsWith(".")
        || name.endsWith("._COPYING_");
  }
}
