package dev.stoker.examples.demo;

import dev.stoker.examples.cli.StokerCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/** What the demo tests share: the dataset check, an embedded Spark, the CLI with its output. */
final class DemoTesting {
  static final String MISSING_DATASET =
      "Fashion-MNIST is not in "
          + FashionMnist.DEBIAN_FOLDER
          + ": the demo tests need Debian's dataset-fashion-mnist "
          + "(apt-get install -y dataset-fashion-mnist, as root)";
  private static final List<String> FILES =
      List.of(
          "train-images-idx3-ubyte",
          "train-labels-idx1-ubyte",
          "t10k-images-idx3-ubyte",
          "t10k-labels-idx1-ubyte");

  record Run(int exitCode, String out, String err) {}

  private DemoTesting() {}

  static boolean hasDebianFiles() {
    return FILES.stream()
        .allMatch(
            name ->
                Files.isRegularFile(FashionMnist.DEBIAN_FOLDER.resolve(name + ".gz"))
                    || Files.isRegularFile(FashionMnist.DEBIAN_FOLDER.resolve(name)));
  }

  static SparkSession localSpark() {
    return SparkSession.builder()
        .master("local[2]")
        .appName("stoker-demo-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.executor.heartbeatInterval", "1s")
        .getOrCreate();
  }

  /** Runs {@code stoker args...} in this JVM, with System.out and System.err captured. */
  static synchronized Run stoker(String... args) {
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      picocli.CommandLine cli = StokerCli.commandLine();
      code = cli.execute(args);
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
