package dev.stoker.examples.notebook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.stoker.examples.notebook.DatabricksStandIns.Displayed;
import dev.stoker.examples.notebook.NotebookSource.Cell;
import java.io.IOException;
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
 * format), and that its code cells run top to bottom on a local Spark with the stand-ins of
 * {@link DatabricksStandIns}, with results that show it loaded and learned.
 */
class NotebookTest {
  private static final Path NOTEBOOK = Paths.get("notebooks", "stoker-quickstart.scala");

  @Test
  void shouldBeInDatabricksSourceFormat() throws IOException {
    NotebookSource notebook = NotebookSource.read(NOTEBOOK);

    assertThat(notebook.problems())
        .as("%s departs from Databricks' source format", NOTEBOOK)
        .isEmpty();
    assertThat(notebook.markdownCells()).as("markdown cells of %s", NOTEBOOK).isNotEmpty();
    assertThat(notebook.cells().get(0).markdown())
        .as("%s: the first cell is markdown (what the notebook does, how to attach Stoker)",
            NOTEBOOK)
        .isTrue();
    assertThat(notebook.codeCells()).as("code cells of %s", NOTEBOOK).hasSizeGreaterThanOrEqualTo(6);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void shouldRunEveryCodeCellInOrderOnALocalSpark(@TempDir Path folder) throws IOException {
    NotebookSource notebook = NotebookSource.read(NOTEBOOK);
    assertThat(notebook.problems()).as("format of %s", NOTEBOOK).isEmpty();

    ClassLoader testLoader = Thread.currentThread().getContextClassLoader();
    try (ScalaCells cells = new ScalaCells()) {
      // Spark's local executors load the closures of the cells with the thread's loader.
      Thread.currentThread().setContextClassLoader(cells.classLoader());
      SparkSession spark = localSpark(folder);
      try {
        DatabricksStandIns.open(spark, Map.of(
            "path", folder.resolve("data").toString(), "rows", "4000"));
        run(cells, "the stand-ins for Databricks' globals", DatabricksStandIns.PRELUDE);
        for (Cell cell : notebook.codeCells()) {
          run(cells, cell + " of " + NOTEBOOK, cell.text());
        }
        run(cells, "the check after the notebook", "dev.stoker.examples.notebook"
            + ".DatabricksStandIns.record(\"testAccuracy\", testAccuracy)");
      } finally {
        spark.stop();
      }
    } finally {
      Thread.currentThread().setContextClassLoader(testLoader);
    }

    Displayed throughput = displayedWith("samplesPerSecond");
    assertThat(throughput.rows()).extracting(row -> row.getAs("numWorkers"))
        .containsExactly(0, 0, 1, 1, 2, 2);
    assertThat(throughput.rows()).allSatisfy(row -> {
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

  private static void run(ScalaCells cells, String what, String code) {
    ScalaCells.Outcome outcome = cells.run(code);
    if (!outcome.success()) {
      fail("%s failed (%s):%n%s", what, outcome.result(), outcome.output());
    }
  }

  private static Displayed displayedWith(String column) {
    return DatabricksStandIns.displayed().stream()
        .filter(d -> d.columns().contains(column))
        .reduce((first, last) -> last)
        .orElseThrow(() -> new AssertionError("no frame with a column '" + column + "' was "
            + "displayed; displayed: " + DatabricksStandIns.displayed().stream()
                .map(Displayed::columns).toList()));
  }

  private static SparkSession localSpark(Path folder) {
    return SparkSession.builder().master("local[2]").appName("stoker-notebook")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.local.dir", folder.resolve("spark").toString())
        .config("spark.sql.warehouse.dir", folder.resolve("warehouse").toString())
        .getOrCreate();
  }
}
