package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Needs Debian's dataset-fashion-mnist (the CI installs it); says so when it is missing. */
class FashionMnistTest {
  @TempDir
  Path dir;

  private static void assumeInstalled() {
    assumeTrue(Files.isDirectory(FashionMnist.DEBIAN_FOLDER),
        "Fashion-MNIST is not installed at " + FashionMnist.DEBIAN_FOLDER
            + " (apt-get install dataset-fashion-mnist): the real-data tests cannot run");
  }

  @Test
  void shouldFindAndCheckTheRealFiles() throws Exception {
    assumeInstalled();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    FashionMnist.Files4 files = FashionMnist.locate(null, dir,
        new PrintStream(log, true, StandardCharsets.UTF_8));
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains("Fashion-MNIST from Debian's dataset-fashion-mnist").contains("verified");
    IdxFile images = IdxFile.read(files.trainImages());
    IdxFile labels = IdxFile.read(files.testLabels());
    assertThat(images.shape()).containsExactly(60000, 28, 28);
    assertThat(labels.count()).isEqualTo(10000);
  }

  @Test
  void shouldRefuseAFolderWithACorruptFileNamingItAndTheRemedy() throws Exception {
    assumeInstalled();
    for (String name : new String[] {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
        "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}) {
      Files.copy(FashionMnist.DEBIAN_FOLDER.resolve(name), dir.resolve(name));
    }
    Path labels = dir.resolve("t10k-labels-idx1-ubyte");
    Files.delete(dir.resolve("t10k-labels-idx1-ubyte.gz"));
    byte[] content = new byte[10008];
    Files.write(labels, content);
    assertThatThrownBy(() -> FashionMnist.locate(dir, dir, new PrintStream(
        new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("--data: the content of " + labels + " has SHA-256 ")
        .hasMessageEndingWith("(expected: 0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7"
            + "dec38c34, the published file; delete it to fetch it again)");
  }

  @Test
  void shouldSayWhichFileIsMissing() {
    assertThatThrownBy(() -> FashionMnist.locate(dir, dir, new PrintStream(
        new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
        .isInstanceOf(IOException.class)
        .hasMessage("--data: no train-images-idx3-ubyte(.gz) in " + dir + " (expected: the four "
            + "Fashion-MNIST IDX files; leave out --data to fetch them)");
  }
}
