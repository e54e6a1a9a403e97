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
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding the files: the real-data tests need Debian's dataset-fashion-mnist (the CI installs it)
 * and say so when it is missing; the others stand in an empty folder for the package, a shell
 * command for apt-get and a closed local port for the published files.
 */
class FashionMnistTest {
  @TempDir Path dir;

  private static void assumeInstalled() {
    assumeTrue(
        Files.isDirectory(FashionMnist.DEBIAN_FOLDER),
        "Fashion-MNIST is not installed at "
            + FashionMnist.DEBIAN_FOLDER
            + " (apt-get install dataset-fashion-mnist): the real-data tests cannot run");
  }

  @Test
  void shouldFindAndCheckTheRealFiles() throws Exception {
    assumeInstalled();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    FashionMnist.Files4 files =
        FashionMnist.locate(null, dir, false, new PrintStream(log, true, StandardCharsets.UTF_8));
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains("Fashion-MNIST from Debian's dataset-fashion-mnist")
        .contains("verified");
    IdxFile images = IdxFile.read(files.trainImages());
    IdxFile labels = IdxFile.read(files.testLabels());
    assertThat(images.shape()).containsExactly(60000, 28, 28);
    assertThat(labels.count()).isEqualTo(10000);
  }

  @Test
  void shouldRefuseAFolderWithACorruptFileNamingItAndTheRemedy() throws Exception {
    assumeInstalled();
    for (String name :
        new String[] {
          "train-images-idx3-ubyte.gz",
          "train-labels-idx1-ubyte.gz",
          "t10k-images-idx3-ubyte.gz",
          "t10k-labels-idx1-ubyte.gz"
        }) {
      Files.copy(FashionMnist.DEBIAN_FOLDER.resolve(name), dir.resolve(name));
    }
    Path labels = dir.resolve("t10k-labels-idx1-ubyte");
    Files.delete(dir.resolve("t10k-labels-idx1-ubyte.gz"));
    byte[] content = new byte[10008];
    Files.write(labels, content);
    assertThatThrownBy(
            () ->
                FashionMnist.locate(
                    dir,
                    dir,
                    false,
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("--data: the content of " + labels + " has SHA-256 ")
        .hasMessageEndingWith(
            "(expected: 0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7"
                + "dec38c34, the published file; delete it to fetch it again)");
  }

  @Test
  void shouldSayWhichFileIsMissing() {
    assertThatThrownBy(
            () ->
                FashionMnist.locate(
                    dir,
                    dir,
                    false,
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
        .isInstanceOf(IOException.class)
        .hasMessage(
            "--data: no train-images-idx3-ubyte(.gz) in "
                + dir
                + " (expected: the four "
                + "Fashion-MNIST IDX files; leave out --data to fetch them)");
  }

  private FashionMnist.Sources standIns(String installScript) throws IOException {
    return new FashionMnist.Sources(
        Files.createDirectories(dir.resolve("debian")),
        List.of("sh", "-c", installScript),
        Duration.ofMinutes(1),
        "http://127.0.0.1:9/");
  }

  @Test
  void shouldNotInstallAnythingUnlessAskedButSayHowAndDownload() throws Exception {
    Path installed = dir.resolve("installed");
    ByteArrayOutputStream log = new ByteArrayOutputStream();

    assertThatThrownBy(
            () ->
                FashionMnist.locate(
                    null,
                    dir.resolve("cache"),
                    false,
                    new PrintStream(log, true, StandardCharsets.UTF_8),
                    standIns("touch " + installed)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            "downloading http://127.0.0.1:9/train-images-idx3-ubyte.gz " + "failed: ")
        .hasMessageEndingWith(
            "(no network? install Debian's dataset-fashion-mnist ('apt-get "
                + "install -y dataset-fashion-mnist' as root, or --install-dataset), or give the files "
                + "with --data DIR)");
    assertThat(installed).doesNotExist();
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains(
            "stoker: Fashion-MNIST is neither in "
                + dir.resolve("debian")
                + " nor in "
                + dir.resolve("cache")
                + "; downloading the "
                + "published files (to use Debian's dataset-fashion-mnist instead: 'apt-get install -y "
                + "dataset-fashion-mnist' as root, or run the demo with --install-dataset)");
  }

  @Test
  void shouldInstallWhenAskedShowingTheCommandAndItsOutput() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    String script = "echo Setting up dataset-fashion-mnist; echo done >&2";

    assertThatThrownBy(
            () ->
                FashionMnist.locate(
                    null,
                    dir.resolve("cache"),
                    true,
                    new PrintStream(log, true, StandardCharsets.UTF_8),
                    standIns(script)))
        .isInstanceOf(IOException.class)
        .hasMessage(
            "--install-dataset: 'sh -c "
                + script
                + "' succeeded but left no "
                + "Fashion-MNIST files in "
                + dir.resolve("debian")
                + " (expected: the four IDX files "
                + "there; give them with --data DIR instead)");
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains(
            "stoker: installing Debian's "
                + "dataset-fashion-mnist (--install-dataset): sh -c "
                + script
                + " (stopped after 60 s)\n"
                + "  Setting up dataset-fashion-mnist\n  done\n");
  }
}
