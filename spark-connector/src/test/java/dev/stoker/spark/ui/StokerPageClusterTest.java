package dev.stoker.spark.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.RankFunction;
import dev.stoker.spark.RankReport;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TestFrames;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.testing.SparkClusters;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Stoker page of a run on local-cluster (two executor JVMs), in a real browser: live while the
 * ranks hold mid-epoch, each rank's figures in the rendered page; then the same page in a History
 * Server started from the run's event log; and a History Server without Stoker on its class path
 * reads the same log unharmed. Without chromium the browser steps are skipped (the HTTP ones still
 * run), with a message saying so.
 */
@Timeout(400)
class StokerPageClusterTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int HELD = 3;
  private static final int BATCHES_PER_EPOCH = 6;

  @Test
  void shouldShowEachRankLiveInTheBrowserAndTheSamePageInTheHistoryServer(@TempDir Path dir)
      throws Exception {
    Path events = Files.createDirectories(dir.resolve("events"));
    Path gate = dir.resolve("go");
    SparkSession spark =
        SparkClusters.cluster(
            2,
            false,
            Map.of(
                "spark.ui.enabled",
                "true",
                "spark.ui.port",
                "0",
                "spark.eventLog.enabled",
                "true",
                "spark.eventLog.dir",
                events.toUri().toString(),
                "spark.executor.heartbeatInterval",
                "1s"));
    String appId = spark.sparkContext().applicationId();
    String live;
    String finalPage;
    TrainingResult<Long> run;
    try {
      String ui = spark.sparkContext().uiWebUrl().get();
      CompletableFuture<TrainingResult<Long>> running =
          CompletableFuture.supplyAsync(
              () ->
                  StokerSpark.on(TestFrames.frame(spark, 4, 26, 27))
                      .tensor("x", DType.FLOAT32, 4)
                      .scalar("id", DType.INT64)
                      .options(
                          LoaderOptions.builder().batchSize(4).dropLast(true).numWorkers(1).build())
                      .option("epochs", "1")
                      .worldSize(2)
                      .run(holding(gate.toString())));
      try {
        live = await(ui + "/stoker/", StokerPageClusterTest::rowsHolding, running);
        assertThat(live).contains("running for", "window.location.reload()");
        if (Chromium.find() != null) {
          String dom = Chromium.dumpDom(ui + "/stoker/");
          for (int rank = 0; rank < 2; rank++) {
            assertThat(StokerPageTest.row(dom, rank))
                .contains("|" + HELD + " of " + BATCHES_PER_EPOCH + "|", "|cpu|");
          }
          assertThat(dom).contains("<svg class=\"stoker-chart\"", "Input pipeline:", "Straggler:");
        } else {
          System.out.println(
              "StokerPageClusterTest: chromium is not installed (apt-get "
                  + "install chromium chromium-driver): the live page was checked over HTTP only");
        }
      } finally {
        Files.createFile(gate);
      }
      run = running.get(240, TimeUnit.SECONDS);
      finalPage = await(ui + "/stoker/", page -> page.contains("finished in"), null);
    } finally {
      spark.stop();
    }
    for (RankReport rank : run.report().ranks()) {
      assertThat(StokerPageTest.row(live, rank.rank()))
          .contains(
              "|" + rank.executorId() + "|",
              "|cpu|",
              "|" + HELD + " of " + BATCHES_PER_EPOCH + "|",
              "|" + rank.droppedRows() + "|");
      assertThat(StokerPageTest.row(finalPage, rank.rank()))
          .contains(
              "|" + rank.batches() + " of " + BATCHES_PER_EPOCH + "|",
              "|" + rank.executorId() + "|",
              "|" + rank.verdict() + "|");
    }
    assertThat(run.results()).containsExactly((long) BATCHES_PER_EPOCH, (long) BATCHES_PER_EPOCH);

    // Both History Servers start at once: one with Stoker on its class path, one without.
    Predicate<String> stoker =
        entry ->
            entry.contains(
                File.separator + "spark-connector" + File.separator + "target" + File.separator);
    try (HistoryServerProcess history =
            HistoryServerProcess.start(events, dir.resolve("hs.log"), entry -> false);
        HistoryServerProcess plain =
            HistoryServerProcess.start(events, dir.resolve("plain.log"), stoker)) {
      shouldShowTheSamePage(history.awaitApplication(appId), appId, finalPage, run);
      shouldReadTheLogUnharmedWithoutStoker(plain.awaitApplication(appId), appId);
    }
  }

  private static void shouldShowTheSamePage(
      HistoryServerProcess history, String appId, String finalPage, TrainingResult<Long> run) {
    HttpResponse<String> page = history.get("/history/" + appId + "/stoker/");
    assertThat(page.statusCode()).as(history.tail()).isEqualTo(200);
    assertThat(runs(page.body())).isEqualTo(runs(finalPage));
    if (Chromium.find() != null) {
      String dom = Chromium.dumpDom(history.address + "/history/" + appId + "/stoker/");
      for (RankReport rank : run.report().ranks()) {
        assertThat(StokerPageTest.row(dom, rank.rank()))
            .contains(
                "|" + rank.batches() + " of " + BATCHES_PER_EPOCH + "|",
                "|" + rank.executorId() + "|",
                "|" + rank.verdict() + "|");
      }
      assertThat(dom).doesNotContain("window.location.reload()");
    }
  }

  private static void shouldReadTheLogUnharmedWithoutStoker(
      HistoryServerProcess plain, String appId) {
    HttpResponse<String> jobs = plain.get("/api/v1/applications/" + appId + "/jobs");
    assertThat(jobs.statusCode()).isEqualTo(200);
    assertThat(jobs.body())
        .contains("stoker: loading 2 partitions in place into 2 ranks")
        .contains("\"status\" : \"SUCCEEDED\"");
    assertThat(plain.get("/history/" + appId + "/jobs/").statusCode()).isEqualTo(200);
    assertThat(plain.get("/history/" + appId + "/stoker/").body()).doesNotContain(StokerPage.BEGIN);
    assertThat(plain.tail())
        .as("the plain History Server's log")
        .contains("Drop unrecognized event: " + StokerRunStart.class.getName());
  }

  /** Reads {@link #HELD} batches, waits for the gate file, reads the rest. */
  private static RankFunction<Long> holding(String gate) {
    return (rank, loader) -> {
      long batches = 0;
      for (Batch batch : loader.epoch(0)) {
        batches++;
        if (batches == HELD) {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(200);
          while (!Files.exists(Path.of(gate))) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException("no gate " + gate + " within 200 s");
            }
            Thread.sleep(50);
          }
        }
      }
      return batches;
    };
  }

  private static boolean rowsHolding(String page) {
    return page.contains("<tr id=\"stoker-rank-1\"")
        && page.contains("<tr id=\"stoker-rank-0\"")
        && StokerPageTest.row(page, 0).contains("|" + HELD + " of " + BATCHES_PER_EPOCH + "|")
        && StokerPageTest.row(page, 1).contains("|" + HELD + " of " + BATCHES_PER_EPOCH + "|");
  }

  /** The page, once {@code ready} says so (the run must still go, if given). */
  private static String await(String url, Predicate<String> ready, CompletableFuture<?> running)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    String last = null;
    while (System.nanoTime() < deadline) {
      if (running != null && running.isDone()) {
        running.get();
        throw new IllegalStateException("the run ended before the page showed it: " + last);
      }
      HttpResponse<String> page =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
              HttpResponse.BodyHandlers.ofString());
      last = page.body();
      if (page.statusCode() == 200 && ready.test(last)) {
        return last;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(
        "the page at " + url + " did not show what was awaited: " + last);
  }

  /** The runs' part of a page: the same live and replayed. */
  static String runs(String page) {
    int start = page.indexOf(StokerPage.BEGIN);
    int end = page.indexOf(StokerPage.END);
    assertThat(start).as("the Stoker runs in %s", page).isGreaterThanOrEqualTo(0);
    return page.substring(start, end + StokerPage.END.length());
  }
}
