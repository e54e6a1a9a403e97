package dev.stoker.examples.notebook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.examples.notebook.DatabricksStandIns.Displayed;
import dev.stoker.examples.notebook.NotebookSource.Cell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Databricks notebook of {@code examples/notebooks}: that Databricks can import it (the source
 * format), and that its code cells run top to bottom on a local Spark with the stand-ins of {@link
 * DatabricksStandIns}, with results that show it loaded and learned.
 */
class NotebookTest {
  private static final Path NOTEBOOK = Paths.get("notebooks", "stoker-quickstart.scala");

  @Test
  void shouldBeInDatabricksSourceFormat() throws IOException {
    NotebookSource notebook = NotebookSource.read(NOTEBOOK);

    assertThat(notebook.problems())
        .as("%s departs from Databricks' source format", NOTEBOOK)
        .isEmpty();
    assertThat(notebook.cells().get(0).markdown())
        .as(
            "%s: the first cell is markdown (what the notebook does, how to attach Stoker)",
            NOTEBOOK)
        .isTrue();
    assertThat(notebook.markdownCells()).as("markdown cells of %s", NOTEBOOK).hasSizeGreaterThan(3);
    assertThat(notebook.codeCells()).as("code cells of %s", NOTEBOOK).hasSizeGreaterThan(6);
  }

  @Test
  void shouldNameTheRuntimeJarOfThisBuild() throws IOException {
    String version = System.getProperty("stoker.version");
    assertThat(version).as("system property stoker.version (set by the build)").isNotBlank();

    assertThat(NotebookSource.read(NOTEBOOK).cells().get(0).text())
        .as("the Maven coordinate in the first cell of %s", NOTEBOOK)
        .contains("`dev.stoker:stoker-spark-runtime-3.5_2.12:" + version + "`")
        .contains("stoker-spark-runtime-3.5_2.12-<version>.jar");
  }

  @Test
  void shouldReportEachDepartureFromTheFormat(@TempDir Path folder) throws IOException {
    Path file =
        Files.writeString(
            folder.resolve("bad.scala"),
            String.join(
                "\n",
                "// Databricks notebook",
                "// MAGIC %md",
                "// MAGIC # Title",
                "no magic here",
                "// COMMAND ----------",
                "",
                "// MAGIC %sql",
                "// COMMAND ----------",
                "val x = 1",
                "// MAGIC stray",
                "// COMMAND ---------- ",
                "val y = 2",
                "// COMMAND ----------",
                ""));

    assertThat(NotebookSource.read(file).problems())
        .containsExactlyInAnyOrder(
            "line 1: '// Databricks notebook' (expected: '// Databricks notebook source', or "
                + "Databricks imports the file as a plain script)",
            "line 4 in cell 1 (line 2, markdown: '// MAGIC %md'): 'no magic here' (expected: every "
                + "line of a markdown cell to start with '// MAGIC ')",
            "cell 2 (line 7, markdown: '// MAGIC %sql'): starts with '// MAGIC %sql' (expected: "
                + "'// MAGIC %md' for a markdown cell)",
            "line 10 in cell 3 (line 9, code: 'val x = 1'): '// MAGIC stray' (expected: MAGIC lines "
                + "only in a cell that starts with '// MAGIC %md')",
            "line 11: '// COMMAND ---------- ' (expected: exactly '// COMMAND ----------' to separate "
                + "cells)",
            "cell 4 (line 14, code: ''): empty (expected: code or markdown; Databricks shows it as a "
                + "blank cell)");
  }

  @Test
  void shouldNameTheCellThatFailsWithWhatTheInterpreterSaid(@TempDir Path folder)
      throws IOException {
    Path file =
        Files.writeString(
            folder.resolve("failing.scala"),
            String.join(
                "\n",
                "// Databricks notebook source",
                "// MAGIC %md",
                "// MAGIC # Fails in its third cell",
                "// COMMAND ----------",
                "val x = 1",
                "// COMMAND ----------",
                "",
                "require(x == 2, \"x is not 2\")",
                "// COMMAND ----------",
                "val y = x.noSuchMethod"));
    NotebookSource notebook = NotebookSource.read(file);

    try (ScalaCells cells = new ScalaCells()) {
      assertThatThrownBy(() -> runCells(cells, notebook))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining(
              "cell 3 (line 8, code: 'require(x == 2, \"x is not 2\")') of "
                  + file
                  + " failed (Error):")
          .hasMessageContaining("requirement failed: x is not 2");
    }
  }

  @Test
  void shouldWrapCellsInClassesAsDatabricksDoes() {
    try (ScalaCells cells = new ScalaCells()) {
      run(
          cells,
          "a cell naming its wrapper",
          "dev.stoker.examples.notebook.DatabricksStandIns"
              + ".record(\"wrapper\", getClass.getName)");
    }

    // Class-based: a closure that reads a notebook value captures a wrapper instance, as there.
    assertThat((String) DatabricksStandIns.recorded("wrapper")).endsWith("$iw");
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void shouldRunEveryCodeCellInOrderOnALocalSpark(@TempDir Path folder) throws IOException {
    NotebookSource notebook = NotebookSource.read(NOTEBOOK);
    assertThat(notebook.problems()).as("format of %s", NOTEBOOK).isEmpty();

    ClassLoader testLoader = Thread.currentThread().getContextClassLoader();
    try (ScalaCells cells = new ScalaCells()) {
      // Spark's local executors load the closures of the cells with this thread's loader.
      Thread.currentThread().setContextClassLoader(cells.classLoader());
      SparkSession spark = localSpark(folder);
      try {
        DatabricksStandIns.open(
            spark, Map.of("path", folder.resolve("data").toString(), "rows", "4000"));
        run(cells, "the stand-ins for Databricks' globals", DatabricksStandIns.PRELUDE);
        runCells(cells, notebook);
        run(
            cells,
            "the check after the notebook",
            "dev.stoker.examples.notebook"
                + ".DatabricksStandIns.record(\"testAccuracy\", testAccuracy)");
      } finally {
        spark.stop();
      }
    } finally {
      Thread.currentThread().setContextClassLoader(testLoader);
    }

    Displayed throughput = displayedWith("samplesPerSecond");
    assertThat(throughput.rows())
        .extracting(row -> row.getAs("numWorkers"))
        .containsExactly(0, 0, 1, 1, 2, 2);
    assertThat(throughput.rows())
        .allSatisfy(
            row -> {
              assertThat(row.<Long>getAs("samplesPerSecond")).isPositive();
              assertThat(row.<String>getAs("verdict")).isNotBlank();
            });
    List<Row> epochs = displayedWith("accuracy").rows();
    assertThat(epochs).hasSize(3);
    assertThat(epochs.get(2).<Double>getAs("loss")).isLessThan(epochs.get(0).getAs("loss"));
    assertThat((Double) DatabricksStandIns.recorded("testAccuracy"))
        .as("accuracy of the trained model on the unseen images")
        .isGreaterThan(0.9);
  }

  /** Runs the code cells in order; the first that fails fails the test, named with its output. */
  private static void runCells(ScalaCells cells, NotebookSource notebook) {
    for (Cell cell : notebook.codeCells()) {
      run(cells, cell + " of " + notebook.file(), cell.text());
    }
  }

  private static void run(ScalaCells cells, String what, String code) {
    ScalaCells.Outcome outcome = cells.run(code);
    if (!outcome.success()) {
      throw new AssertionError(
          String.format("%s failed (%s):%n%s", what, outcome.result(), outcome.output()));
    }
  }

  private static Displayed displayedWith(String column) {
    return DatabricksStandIns.displayed().stream()
        .filter(d -> d.columns().contains(column))
        .reduce((first, last) -> last)
        .orElseThrow(
            () ->
                new AssertionError(
                    "no frame with a column '"
                        + column
                        + "' was "
                        + "displayed; displayed: "
                        + DatabricksStandIns.displayed().stream()
                            .map(Displayed::columns)
                            .toList()));
  }

  private static SparkSession localSpark(Path folder) {
    return SparkSession.builder()
        .master("local[2]")
        .appName("stoker-notebook")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.local.dir", folder.resolve("spark").toString())
        .config("spark.sql.warehouse.dir", folder.resolve("warehouse").toString())
        .getOrCreate();
  }
}
