package dev.stoker.spark.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.RankIds;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TestFrames;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.python.PythonRanks;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.kvstore.KVStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Stoker page of a {@code local[2]} session: without the page's classes, or with classes that
 * no longer fit Spark (every call a {@code NoSuchMethodError}, as a changed internal API gives), a
 * run still trains and reports, there is just no page; a {@code format("stoker")} read is listed on
 * the page with a link to its query in the SQL tab.
 */
@Timeout(120)
class StokerUiLocalTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(2, Map.of("spark.ui.enabled", "true", "spark.ui.port", "0"));
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static TrainingResult<RankIds> train() {
    return StokerSpark.on(TestFrames.frame(spark, 4, 10, 10))
        .tensor("x", DType.FLOAT32, 4)
        .scalar("id", DType.INT64)
        .options(LoaderOptions.builder().batchSize(3).dropLast(true).build())
        .worldSize(2)
        .run(RankIds.reading(2));
  }

  @Test
  void shouldTrainAndReportWithoutThePagesClasses() {
    StokerUi ui = StokerUi.replace(spark.sparkContext(), "dev.stoker.spark.ui.NoSuchHooks");

    TrainingResult<RankIds> run = train();

    assertThat(ui.address()).isNull();
    assertThat(ui.posting()).isFalse();
    assertThat(StokerUi.of(spark.sparkContext())).isSameAs(ui);
    assertThat(run.results()).allMatch(RankIds::consistent);
    assertThat(run.report().rank(1).batches()).isEqualTo(6);
    assertThat(run.report().toString()).contains("rank 1: 10 rows, 1 dropped");
  }

  @Test
  void shouldTrainAndReportWhenThePagesClassesNoLongerFitSpark() {
    StokerUi ui = StokerUi.replace(spark.sparkContext(), BrokenHooks.class.getName());

    TrainingResult<RankIds> run = train();

    assertThat(ui.address()).isNull();
    assertThat(BrokenHooks.posts).isPositive();
    assertThat(run.results()).allMatch(RankIds::consistent);
    assertThat(run.report().rank(0).batches()).isEqualTo(6);
  }

  @Test
  void shouldGiveTheLivePageItsAddressWhenTheClassesFit() {
    StokerUi ui = StokerUi.replace(spark.sparkContext(), StokerUi.HOOKS);

    assertThat(ui.address()).isEqualTo(spark.sparkContext().uiWebUrl().get() + "/stoker/");
    assertThat(ui.posting()).isTrue();
  }

  @Test
  void shouldListAStokerReadWithALinkToItsQueryInTheSqlTab(@TempDir Path dir) throws Exception {
    StokerUi.replace(spark.sparkContext(), StokerUi.HOOKS);
    String path = dir.resolve("t.parquet").toString();
    spark.range(100).selectExpr("id", "cast(id as float) as y").write().parquet(path);

    long rows =
        spark
            .read()
            .format("stoker")
            .option("batchSize", 8)
            .option("worldSize", 2)
            .option("dropLast", true)
            .load(path)
            .collectAsList()
            .size();

    assertThat(rows).isEqualTo(96);
    String page = StokerPage.content(new SparkUiHooks().liveStore(spark.sparkContext()), true);
    assertThat(page)
        .containsPattern(
            "<a href=\"../SQL/execution/\\?id=\\d+\">SQL query \\d+</a>"
                + "</td><td>&#39;"
                + java.util.regex.Pattern.quote(path)
                + "&#39;</td><td>2</td><td>6 of 8 rows</td>"
                + "<td>100</td><td>4</td><td>storage order</td></tr>");

    spark
        .read()
        .format("stoker")
        .option("batchSize", 8)
        .option("worldSize", 2)
        .option("dropLast", true)
        .option("shuffle", true)
        .option("shuffleBuffer", 16)
        .option("labelColumn", "id")
        .load(path)
        .collectAsList();
    // a shuffled read's order is measured off the read's path: the page lists it once measured,
    // with the mix of its labels (the ids, 100 classes of one row each) in each step
    String measured = "";
    for (long end = System.currentTimeMillis() + 10_000;
        System.currentTimeMillis() < end && !measured.contains("gap entropy"); ) {
      Thread.sleep(20);
      measured = StokerPage.content(new SparkUiHooks().liveStore(spark.sparkContext()), true);
    }
    assertThat(measured)
        .containsPattern(
            "<td>gap entropy \\d+\\.\\d\\d bits \\(a random permutation: \\d+\\.\\d\\d\\) "
                + "over each rank&#39;s first 48 rows; a step&#39;s labels \\d\\.\\d{3} from the "
                + "input&#39;s mix \\(a random permutation: \\d\\.\\d{3}\\) over 6 steps</td></tr>");
  }

  @Test
  void shouldListEachBarrierStageOverPythonHandleRowsAsARunEndedWithIt(@TempDir Path dir)
      throws Exception {
    StokerUi.replace(spark.sparkContext(), StokerUi.HOOKS);
    String path = dir.resolve("p.parquet").toString();
    spark
        .range(0, 64, 1, 2)
        .selectExpr("id", "array(cast(id as float)) as x")
        .write()
        .parquet(path);
    Dataset<Row> read =
        spark
            .read()
            .format("stoker")
            .option("batchSize", 4)
            .option("worldSize", 2)
            .option("dropLast", true)
            .load(path);

    List<Integer> ranks = barrier(PythonRanks.of(read), -1).collect();
    assertThat(ranks).containsExactlyInAnyOrder(0, 1);
    String ended = awaitPage("finished in");
    assertThat(ended)
        .contains(
            "Python ranks over Parquet", "<tr id=\"stoker-rank-0\"", "shared memory (Python)");

    // A stage whose rank fails ends its run with the failure (each attempt is a run of its own).
    assertThatThrownBy(() -> barrier(PythonRanks.of(read), 1).collect())
        .hasMessageContaining("rank 1 failed on purpose");
    assertThat(awaitPage("failed after")).contains("rank 1 failed on purpose");
    // and each read's listener leaves with its job, whether it succeeded or failed
    long listening = pythonRunListeners();
    for (long end = System.currentTimeMillis() + 10_000;
        System.currentTimeMillis() < end && listening > 0; ) {
      Thread.sleep(20);
      listening = pythonRunListeners();
    }
    assertThat(listening).as("Python runs still listening").isZero();
  }

  private static long pythonRunListeners() {
    return spark.sparkContext().listenerBus().listeners().stream()
        .filter(l -> l.getClass().getName().equals("dev.stoker.spark.python.PythonRun"))
        .count();
  }

  /** The page once it contains {@code text} (the listener thread posts the events), or as it is. */
  private static String awaitPage(String text) throws Exception {
    String page = "";
    for (long end = System.currentTimeMillis() + 10_000;
        System.currentTimeMillis() < end && !page.contains(text); ) {
      Thread.sleep(20);
      page = StokerPage.content(new SparkUiHooks().liveStore(spark.sparkContext()), true);
    }
    return page;
  }

  /**
   * A barrier stage over handle rows, as Python's mapInArrow runs one; rank {@code fail} throws.
   */
  private static JavaRDD<Integer> barrier(Dataset<Row> handles, int fail) {
    return handles
        .javaRDD()
        .rdd()
        .barrier()
        .mapPartitions(
            new RankOf(fail), false, scala.reflect.ClassTag$.MODULE$.apply(Integer.class))
        .toJavaRDD();
  }

  /** A barrier task's function: the ranks of its handle rows, failing on rank {@code fail}. */
  private static final class RankOf
      extends scala.runtime.AbstractFunction1<
          scala.collection.Iterator<Row>, scala.collection.Iterator<Integer>>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final int fail;

    RankOf(int fail) {
      this.fail = fail;
    }

    @Override
    public scala.collection.Iterator<Integer> apply(scala.collection.Iterator<Row> rows) {
      List<Integer> ranks = new java.util.ArrayList<>();
      while (rows.hasNext()) {
        int rank = rows.next().getInt(0);
        if (rank == fail) {
          throw new IllegalStateException("rank " + rank + " failed on purpose");
        }
        ranks.add(rank);
      }
      return scala.collection.JavaConverters.asScalaIterator(ranks.iterator());
    }
  }

  /** Hooks whose calls into Spark fail as against a Spark whose internals changed. */
  static final class BrokenHooks implements UiHooks {
    static volatile int posts;

    @Override
    public KVStore liveStore(SparkContext context) {
      return new org.apache.spark.util.kvstore.InMemoryStore();
    }

    @Override
    public void post(SparkContext context, SparkListenerEvent event) {
      posts++;
      throw new NoSuchMethodError(
          "'org.apache.spark.scheduler.LiveListenerBus "
              + "org.apache.spark.SparkContext.listenerBus()'");
    }

    @Override
    public boolean attachLive(SparkContext context, KVStore store) {
      throw new NoSuchMethodError(
          "'void org.apache.spark.ui.SparkUI.attachTab(" + "org.apache.spark.ui.WebUITab)'");
    }
  }
}
