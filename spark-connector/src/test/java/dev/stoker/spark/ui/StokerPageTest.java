package dev.stoker.spark.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.util.JsonProtocol;
import org.apache.spark.util.kvstore.InMemoryStore;
import org.junit.jupiter.api.Test;

/**
 * The Stoker page from a run's events: each rank's figures, the answer with the verdict and the
 * knob, the straggler, the chart; and the same page from the events after Spark's event-log
 * encoding and back.
 */
class StokerPageTest {
  private static final long T0 = 1_700_000_000_000L;

  static RankFigures figures(
      int rank,
      long batches,
      long waitMs,
      long stepMs,
      String verdict,
      String summary,
      boolean finished) {
    return new RankFigures(
        rank,
        "exec-" + rank,
        "host-" + rank,
        "cuda:" + rank,
        "" + rank,
        0,
        batches,
        40,
        2,
        batches * 64,
        1234.5 + rank,
        waitMs,
        stepMs,
        3.25,
        1.5,
        0.5,
        0.0,
        1500L * rank,
        4,
        7 + rank,
        rank,
        verdict,
        summary,
        finished);
  }

  /** A run of two ranks: rank 1 waits for data more and more, rank 0 hardly. */
  static List<SparkListenerEvent> run() {
    List<SparkListenerEvent> events = new ArrayList<>();
    events.add(new StokerRunStart("r1", T0, "Parquet /data/train", 2, 64, 4, 2));
    for (int beat = 1; beat <= 4; beat++) {
      events.add(
          new StokerRankUpdate(
              "r1",
              T0 + beat * 1000L,
              figures(
                  0,
                  beat * 10,
                  beat * 5,
                  beat * 900,
                  "compute-bound",
                  "compute-bound: the consumer waited only 0.6%",
                  false)));
      events.add(
          new StokerRankUpdate(
              "r1",
              T0 + beat * 1000L + 10,
              figures(
                  1,
                  beat * 10,
                  beat * beat * 100,
                  beat * 600,
                  "pipeline-bound",
                  "pipeline-bound: the consumer waited "
                      + "40% of its time for data (3.25 ms per batch to fill); raise numWorkers (now 4, "
                      + "cores 16) or prefetchFactor",
                  beat == 4)));
    }
    events.add(new StokerRunEnd("r1", T0 + 5000, null));
    return events;
  }

  static String page(List<SparkListenerEvent> events) throws Exception {
    InMemoryStore store = new InMemoryStore();
    StokerStoreListener listener = new StokerStoreListener(store);
    events.forEach(listener::onOtherEvent);
    return StokerPage.content(store, false);
  }

  static String row(String html, int rank) {
    int start = html.indexOf("<tr id=\"stoker-rank-" + rank + "\"");
    return html.substring(start, html.indexOf("</tr>", start)).replaceAll("<[^>]+>", "|");
  }

  @Test
  void shouldShowEachRanksFiguresTheVerdictTheKnobAndTheStraggler() throws Exception {
    String html = page(run());

    assertThat(row(html, 0))
        .contains(
            "|0|",
            "|exec-0|",
            "|host-0|",
            "|cuda:0 (gpu 0)|",
            "|40 of 80|",
            "|1235|",
            "|0.02 s (1% of step)|",
            "|3.25||1.50||0.50||90.00||0%||0.00 s|",
            "|7||0|",
            "|compute-bound|",
            "|none: the training step is the limit|");
    assertThat(row(html, 1))
        .contains(
            "|1 (straggler)|",
            "|exec-1|",
            "|40 of 80|",
            "|1.60 s (40% of step)|",
            "|60.00||0%||1.50 s|",
            "|8|",
            "|pipeline-bound|",
            "|raise numWorkers or prefetchFactor|");
    assertThat(html)
        .contains(
            "<b>Input pipeline:</b> <b style=\"color:#c00\">the bottleneck</b> on rank 1: rank 1 "
                + "waited 40% of its step for data (1.60 s). pipeline-bound: the consumer waited 40% of "
                + "its time for data (3.25 ms per batch to fill); raise numWorkers (now 4, cores 16) or "
                + "prefetchFactor. <b>Turn:</b> raise numWorkers or prefetchFactor.");
    assertThat(html)
        .contains(
            "<b>Straggler:</b> rank 1 waited 40% of its step for data "
                + "(1600 ms), the others 1% (median): the other ranks wait for it at every step");
    assertThat(html)
        .contains("finished in 5.00 s; 2 ranks, batchSize 64, numWorkers 4, " + "prefetchFactor 2.")
        .doesNotContain("reloads");
    // exposed wait per interval: rank 1 waited 100, 300, 500, 700 ms of 700, 900, 1100, 1300
    assertThat(html).contains("<polyline data-rank=\"1\"").contains("<polyline data-rank=\"0\"");
    assertThat(html).doesNotContain("<script");
  }

  @Test
  void shouldAnswerThatThePipelineKeepsUpWhenNoRankWaits() throws Exception {
    List<SparkListenerEvent> events =
        List.of(
            new StokerRunStart("r2", T0, "a DataFrame", 2, 8, 0, 1),
            new StokerRankUpdate(
                "r2",
                T0 + 1000,
                figures(0, 5, 1, 500, "compute-bound", "compute-bound: ready", false)),
            new StokerRankUpdate(
                "r2",
                T0 + 1000,
                figures(1, 5, 2, 500, "compute-bound", "compute-bound: ready", false)));

    String html = page(events);

    assertThat(html)
        .contains(
            "<b>Input pipeline:</b> <b style=\"color:#080\">not the bottleneck</b>: "
                + "the most any rank waited for data is 0% of its step (rank 1, 0.00 s); compute-bound: ready.");
    assertThat(html)
        .contains(
            "<b>Straggler:</b> none: the ranks wait alike for data (at most "
                + "0% of the step, rank 1)");
    assertThat(html).contains("running for");
  }

  @Test
  void shouldNameARankClearlyBehindAsTheStragglerButNotOneThatReportedAMomentEarlier() {
    assertThat(
            Straggler.of(
                    List.of(
                        figures(0, 109, 10, 500, null, null, false),
                        figures(1, 100, 10, 500, null, null, false)))
                .rank())
        .isEqualTo(-1);

    Straggler behind =
        Straggler.of(
            List.of(
                figures(0, 100, 10, 500, null, null, false),
                figures(1, 60, 10, 500, null, null, false),
                figures(2, 98, 10, 500, null, null, false)));

    assertThat(behind.rank()).isEqualTo(1);
    assertThat(behind.reason())
        .isEqualTo("rank 1 is 40 batches behind rank 0 and waited 2% of " + "its step for data");
  }

  @Test
  void shouldUnfoldOnlyTheNewestRunAndThoseStillGoing() throws Exception {
    List<SparkListenerEvent> events = new ArrayList<>(run());
    events.add(new StokerRunStart("r0", T0 - 60_000, "older", 1, 8, 0, 1));
    events.add(new StokerRunEnd("r0", T0 - 50_000, null));

    String html = page(events);

    assertThat(html)
        .contains(
            "<details class=\"stoker-run\" id=\"stoker-run-r1\" open>",
            "<details class=\"stoker-run\" id=\"stoker-run-r0\">");
    assertThat(html.indexOf("stoker-run-r1")).isLessThan(html.indexOf("stoker-run-r0"));
  }

  @Test
  void shouldKeepTheLatestRunsOnly() throws Exception {
    InMemoryStore store = new InMemoryStore();
    StokerStoreListener listener = new StokerStoreListener(store);
    for (int run = 0; run <= StokerStoreListener.MAX_RUNS; run++) {
      listener.onOtherEvent(new StokerRunStart("r" + run, T0 + run, "x", 2, 8, 0, 1));
      listener.onOtherEvent(
          new StokerRankUpdate("r" + run, T0 + run, figures(1, 1, 1, 1, null, null, true)));
    }

    assertThat(store.count(RunView.class)).isEqualTo(StokerStoreListener.MAX_RUNS);
    assertThat(store.count(RankView.class)).isEqualTo(StokerStoreListener.MAX_RUNS);
    assertThat(StokerPage.content(store, false))
        .doesNotContain("stoker-run-r0\"")
        .contains("stoker-run-r1\"", "stoker-run-r100\"");
  }

  @Test
  void shouldGoOnWhenTheStoreFailsEvenWithAnError() throws Exception {
    InMemoryStore store =
        new InMemoryStore() {
          @Override
          public void write(Object value) {
            throw new NoSuchMethodError("KVStore.write");
          }
        };
    StokerStoreListener listener = new StokerStoreListener(store);

    listener.onOtherEvent(new StokerRunStart("r", T0, "x", 1, 8, 0, 1));
    listener.onOtherEvent(new StokerRunEnd("r", T0, null));

    assertThat(StokerPage.content(store, true)).contains("No Stoker run yet");
  }

  @Test
  void shouldReloadTheLivePageOnlyWhileARunGoes() throws Exception {
    InMemoryStore store = new InMemoryStore();
    StokerStoreListener listener = new StokerStoreListener(store);
    listener.onOtherEvent(new StokerRunStart("r3", T0, "x", 1, 8, 0, 1));
    assertThat(StokerPage.content(store, true)).contains("window.location.reload()");
    assertThat(StokerPage.content(store, false)).doesNotContain("window.location.reload()");

    listener.onOtherEvent(new StokerRunEnd("r3", T0 + 10, "java.lang.IllegalStateException: <x>"));

    assertThat(StokerPage.content(store, true))
        .doesNotContain("window.location.reload()")
        .contains("failed after 0.01 s: java.lang.IllegalStateException: &lt;x&gt;");
  }

  @Test
  void shouldKeepTheLatestFiguresWhenAnOlderHeartbeatArrivesLate() throws Exception {
    List<SparkListenerEvent> events =
        new ArrayList<>(
            List.of(
                new StokerRunStart("r4", T0, "x", 1, 8, 0, 1),
                new StokerRankUpdate("r4", T0 + 2000, figures(0, 20, 5, 500, null, null, true)),
                new StokerRankUpdate("r4", T0 + 2500, figures(0, 12, 5, 400, null, null, false))));

    assertThat(row(page(events), 0)).contains("|20 of 80|").doesNotContain("&#9654;");
  }

  @Test
  void shouldDrawTheSamePageFromTheEventsAfterTheEventLogsEncoding() throws Exception {
    List<SparkListenerEvent> replayed = new ArrayList<>();
    for (SparkListenerEvent event : run()) {
      String json = JsonProtocol.sparkEventToJsonString(event);
      assertThat(json).contains("\"Event\":\"" + event.getClass().getName() + "\"");
      replayed.add(JsonProtocol.sparkEventFromJson(json));
    }

    assertThat(replayed).isEqualTo(run());
    assertThat(page(replayed)).isEqualTo(page(run()));
  }
}
