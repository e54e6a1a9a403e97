package dev.stoker.examples.demo;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The demo's paths, checked before Spark starts: the data it reads ({@code --data}, else what
 * {@code --install-dataset} needs), and the folders it writes ({@code --cache} for downloads and
 * the Parquet tables, {@code --out} for the plot and the summary), each an existing folder it may
 * write or a path where one can be made. Nothing is created here.
 */
final class DemoPaths {
  private DemoPaths() {}

  /**
   * @throws IllegalArgumentException naming the option, the path and the remedy
   */
  static void check(DemoOptions options) {
    if (options.data != null) {
      data(options.data);
    } else if (options.installDataset
        && FashionMnist.firstMissing(FashionMnist.DEBIAN_FOLDER) != null
        && FashionMnist.firstMissing(options.cache) != null) {
      String problem = DatasetInstall.problem(System.getProperty("user.name"));
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
    }
    writableFolder("--cache", options.cache);
    writableFolder("--out", options.out);
  }

  private static void data(Path folder) {
    if (!Files.isDirectory(folder)) {
      throw new IllegalArgumentException(
          String.format(
              "--data: %s %s (expected: a folder "
                  + "holding the four Fashion-MNIST IDX files; leave out --data to fetch them)",
              folder, Files.exists(folder) ? "is not a folder" : "does not exist"));
    }
    String missing = FashionMnist.firstMissing(folder);
    if (missing != null) {
      throw new IllegalArgumentException(
          String.format(
              "--data: no %s(.gz) in %s (expected: the "
                  + "four Fashion-MNIST IDX files; leave out --data to fetch them)",
              missing, folder));
    }
  }

  /** An existing folder it may write, or a path under the nearest existing one it may write. */
  static void writableFolder(String option, Path path) {
    Path absolute = path.toAbsolutePath().normalize();
    Path existing = absolute;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    String where =
        existing != null && existing.equals(absolute)
            ? option + ": " + path
            : option + ": cannot make " + path + ": " + existing;
    String problem =
        existing == null
            ? null
            : !Files.isDirectory(existing)
                ? "is not a folder"
                : !Files.isWritable(existing) ? "is not writable by this user" : null;
    if (problem != null) {
      throw new IllegalArgumentException(
          String.format(
              "%s %s (expected: a folder it can write, "
                  + "or a path where it can make one; choose another %s)",
              where, problem, option));
    }
  }
}
