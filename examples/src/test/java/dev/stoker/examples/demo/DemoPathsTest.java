package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every path of {@code stoker demo} is checked before Spark starts: a bad one ends the command at
 * once (exit 2) with the option, the path and the remedy, and no Spark session was made.
 */
class DemoPathsTest {
  @TempDir Path dir;

  /** A folder with the four files' names (their content is checked when they are read). */
  private Path data() throws IOException {
    Path data = Files.createDirectories(dir.resolve("data"));
    for (String name :
        new String[] {
          "train-images-idx3-ubyte.gz",
          "train-labels-idx1-ubyte.gz",
          "t10k-images-idx3-ubyte",
          "t10k-labels-idx1-ubyte.gz"
        }) {
      Files.createFile(data.resolve(name));
    }
    return data;
  }

  private DemoTesting.Run demo(Path data, Path cache, Path out) {
    return DemoTesting.stoker(
        "demo",
        "--epochs",
        "1",
        "--no-sweep",
        "--data",
        data.toString(),
        "--cache",
        cache.toString(),
        "--out",
        out.toString());
  }

  private static void assertRefusedBeforeSpark(DemoTesting.Run run, String message) {
    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err()).contains(message);
    assertThat(run.out()).isEmpty();
    assertThat(SparkSession.getDefaultSession().isEmpty()).isTrue();
  }

  @Test
  void shouldRefuseAMissingDataFolder() {
    Path missing = dir.resolve("no-data");

    assertRefusedBeforeSpark(
        demo(missing, dir.resolve("cache"), dir.resolve("out")),
        "--data: "
            + missing
            + " does not exist (expected: a folder holding the four "
            + "Fashion-MNIST IDX files; leave out --data to fetch them)");
  }

  @Test
  void shouldRefuseADataFolderWithoutTheFiles() throws IOException {
    Path data = data();
    Files.delete(data.resolve("t10k-images-idx3-ubyte"));

    assertRefusedBeforeSpark(
        demo(data, dir.resolve("cache"), dir.resolve("out")),
        "--data: no t10k-images-idx3-ubyte(.gz) in "
            + data
            + " (expected: the four "
            + "Fashion-MNIST IDX files; leave out --data to fetch them)");
  }

  @Test
  void shouldRefuseAnOutFolderThatCannotBeMade() throws IOException {
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    Path out = file.resolve("out");

    assertRefusedBeforeSpark(
        demo(data(), dir.resolve("cache"), out),
        "--out: cannot make "
            + out
            + ": "
            + file
            + " is not a folder (expected: a folder it can write, or a path where it can "
            + "make one; choose another --out)");
  }

  @Test
  void shouldRefuseACacheThatIsAFile() throws IOException {
    Path file = Files.writeString(dir.resolve("cache"), "x");

    assertRefusedBeforeSpark(
        demo(data(), file, dir.resolve("out")),
        "--cache: "
            + file
            + " is not a folder (expected: a folder it can write, or a path where it can make one; "
            + "choose another --cache)");
  }

  @Test
  void shouldAcceptFoldersItCanMake() throws IOException {
    DemoOptions options = new DemoOptions();
    options.data = data();
    options.cache = dir.resolve("not/yet/cache");
    options.out = dir.resolve("out");

    options.check();

    assertThat(options.cache.getParent()).doesNotExist();
  }
}
