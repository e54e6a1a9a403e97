package dev.stoker.spark.ui;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.util.kvstore.KVStore;

/**
 * The Stoker page's content, from the views in a status store, as HTML without Spark's frame: per
 * run the answer to "is the input pipeline the bottleneck, on which rank, and why", a table of the
 * ranks' figures and a chart of their exposed wait over time. Plain HTML and inline SVG, nothing
 * fetched from elsewhere; the same store gives the same content, live or replayed.
 */
public final class StokerPage {
  /** Seconds between reloads of the live page while a run goes. */
  static final int REFRESH_SECONDS = 5;

  /** The comments around the runs, the part that is the same live and replayed. */
  public static final String BEGIN = "<!-- stoker runs -->";

  public static final String END = "<!-- /stoker runs -->";
  private static final Set<String> INPUT_BOUND =
      Set.of("pipeline-bound", "memory-bound", "one-worker-saturated");
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

  private StokerPage() {}

  /** Whether {@code store} holds a Stoker run: only then does the History Server show the tab. */
  public static boolean hasRuns(KVStore store) {
    try {
      return store.count(RunView.class) > 0;
    } catch (Exception e) {
      return false;
    }
  }

  /** The content for {@code store}; {@code live}: reload while a run goes. */
  public static String content(KVStore store, boolean live) throws Exception {
    List<RunView> runs = new ArrayList<>();
    for (RunView run : store.view(RunView.class)) {
      runs.add(run);
    }
    runs.sort(Comparator.comparingLong((RunView r) -> r.start.time()).reversed());
    List<RankView> ranks = new ArrayList<>();
    for (RankView rank : store.view(RankView.class)) {
      ranks.add(rank);
    }
    StringBuilder html = new StringBuilder(BEGIN + "\n<div id=\"stoker-runs\">\n");
    html.append(
        "<p>Is the GPU waiting for data, on which rank, and why? <i>Exposed wait</i> is "
            + "the time a rank's training step waited for its next batch; a rank that waits holds "
            + "every other rank back at the next all-reduce. Figures arrive with the executors' "
            + "heartbeats (<code>spark.executor.heartbeatInterval</code>) and when a rank ends.</p>\n");
    if (runs.isEmpty()) {
      html.append(
          "<p>No Stoker run yet: the ranks of <code>StokerSpark.run</code> show here "
              + "while they train.</p>\n");
    }
    boolean going = false;
    boolean newest = true;
    for (RunView run : runs) {
      List<RankFigures> figures = new ArrayList<>();
      List<RankView> views = new ArrayList<>();
      for (RankView view : ranks) {
        if (view.runId.equals(run.runId)) {
          views.add(view);
        }
      }
      views.sort(Comparator.comparingInt(v -> v.figures.rank()));
      for (RankView view : views) {
        figures.add(view.figures);
      }
      going |= run.running();
      run(html, run, views, figures, newest || run.running());
      newest = false;
    }
    reads(html, store);
    html.append("</div>\n").append(END).append('\n');
    if (live && going) {
      html.append("<p class=\"stoker-refresh\">This page reloads every ")
          .append(REFRESH_SECONDS)
          .append(
              " s while a run goes.</p>\n<script>setTimeout(function () { "
                  + "window.location.reload(); }, ")
          .append(REFRESH_SECONDS * 1000)
          .append(");</script>\n");
    }
    return html.toString();
  }

  /** The {@code format("stoker")} scans, each with a link to its query in the SQL tab. */
  private static void reads(StringBuilder html, KVStore store) throws Exception {
    List<StokerRead> reads = new ArrayList<>();
    for (ReadView view : store.view(ReadView.class)) {
      reads.add(view.read);
    }
    if (reads.isEmpty()) {
      return;
    }
    reads.sort(Comparator.comparingLong(StokerRead::time).reversed());
    html.append(
        "<h4>format(\"stoker\") reads</h4>\n<p>Each scan's per-task metrics (rows, "
            + "bytes, read time, storage wait, batches, rows dropped) are on its scan node in the SQL tab.</p>\n"
            + "<table class=\"table table-bordered table-sm stoker-reads\">\n<thead><tr>"
            + "<th>Planned</th><th>Query</th><th>Input</th><th>Ranks</th><th>Batches per rank</th>"
            + "<th>Rows</th><th>Rows dropped</th><th>Order</th></tr></thead>\n<tbody>\n");
    for (StokerRead read : reads) {
      html.append("<tr><td>")
          .append(CLOCK.format(Instant.ofEpochMilli(read.time())))
          .append("</td><td>");
      if (read.executionId() == null) {
        html.append("&ndash;");
      } else {
        html.append("<a href=\"../SQL/execution/?id=")
            .append(esc(read.executionId()))
            .append("\">SQL query ")
            .append(esc(read.executionId()))
            .append("</a>");
      }
      html.append("</td><td>")
          .append(esc(read.input()))
          .append("</td><td>")
          .append(read.ranks())
          .append("</td><td>")
          .append(read.batchesPerRank())
          .append(" of ")
          .append(read.batchSize())
          .append(" rows</td><td>")
          .append(read.rows())
          .append("</td><td>")
          .append(read.droppedRows())
          .append("</td><td>")
          .append(read.order() == null ? "&ndash;" : esc(read.order()))
          .append("</td></tr>\n");
    }
    html.append("</tbody></table>\n");
  }

  /** One run; {@code open}: unfolded (the newest run and those still going). */
  private static void run(
      StringBuilder html,
      RunView run,
      List<RankView> views,
      List<RankFigures> figures,
      boolean open) {
    StokerRunStart start = run.start;
    long now = run.running() ? System.currentTimeMillis() : run.end;
    String state =
        run.running()
            ? "running for " + seconds(now - start.time())
            : run.failure == null
                ? "finished in " + seconds(run.end - start.time())
                : "failed after " + seconds(run.end - start.time()) + ": " + run.failure;
    html.append("<details class=\"stoker-run\" id=\"stoker-run-")
        .append(esc(run.runId))
        .append(open ? "\" open>" : "\">")
        .append("\n<summary><h4 style=\"display:inline\">Run ")
        .append(esc(run.runId))
        .append(" &mdash; ")
        .append(esc(start.description()))
        .append("</h4></summary>\n<p>Started ")
        .append(CLOCK.format(Instant.ofEpochMilli(start.time())))
        .append(", ")
        .append(esc(state))
        .append("; ")
        .append(start.worldSize())
        .append(" ranks, batchSize ")
        .append(start.batchSize())
        .append(", numWorkers ")
        .append(start.numWorkers())
        .append(", prefetchFactor ")
        .append(start.prefetchFactor())
        .append(".</p>\n");
    Straggler straggler = Straggler.of(figures);
    answer(html, figures);
    html.append("<p class=\"stoker-straggler\"><b>Straggler:</b> ")
        .append(esc(straggler.reason()))
        .append("</p>\n");
    table(html, figures, straggler.rank(), run.running());
    if (!run.epochOrders.isEmpty()) {
      html.append("<p class=\"stoker-order\"><b>Order:</b> ");
      for (int i = 0; i < run.epochOrders.size(); i++) {
        html.append(i == 0 ? "" : "; ").append(esc(run.epochOrders.get(i)));
      }
      html.append(".</p>\n");
    }
    WaitChart.svg(html, run.runId, start.time(), now, views);
    html.append("</details>\n");
  }

  /** The one-sentence answer: is the input pipeline the bottleneck, where, and the knob. */
  private static void answer(StringBuilder html, List<RankFigures> figures) {
    html.append("<p class=\"stoker-answer\"><b>Input pipeline:</b> ");
    if (figures.isEmpty()) {
      html.append("no figures yet: they come with the executors' next heartbeats.</p>\n");
      return;
    }
    RankFigures worst = figures.get(0);
    RankFigures shown = null;
    List<String> bound = new ArrayList<>();
    for (RankFigures r : figures) {
      worst = r.waitShare() > worst.waitShare() ? r : worst;
      if (inputBound(r.verdict())) {
        bound.add(String.valueOf(r.rank()));
        shown = shown == null || r.waitShare() > shown.waitShare() ? r : shown;
      }
    }
    if (!bound.isEmpty()) {
      html.append(
          String.format(
              Locale.ROOT,
              "<b style=\"color:#c00\">the bottleneck</b> on "
                  + "rank%s %s: rank %d "
                  + "waited %.0f%% of its step for data (%s). %s. <b>Turn:</b> %s.</p>\n",
              bound.size() > 1 ? "s" : "",
              String.join(", ", bound),
              shown.rank(),
              shown.waitShare() * 100,
              seconds(shown.waitMillis()),
              esc(shown.verdictSummary()),
              knob(shown.verdict())));
    } else {
      html.append(
          String.format(
              Locale.ROOT,
              "<b style=\"color:#080\">not the bottleneck</b>: "
                  + "the most any rank "
                  + "waited for data is %.0f%% of its step (rank %d, %s); %s.</p>\n",
              worst.waitShare() * 100,
              worst.rank(),
              seconds(worst.waitMillis()),
              worst.verdictSummary() == null ? "no verdict yet" : esc(worst.verdictSummary())));
    }
  }

  private static boolean inputBound(String verdict) {
    return verdict != null && INPUT_BOUND.contains(verdict);
  }

  private static void table(
      StringBuilder html, List<RankFigures> figures, int straggler, boolean running) {
    html.append(
        "<table class=\"table table-bordered table-sm stoker-ranks\">\n<thead><tr>"
            + "<th>Rank</th><th>Executor</th><th>Host</th><th>Device</th>"
            + "<th>Batches delivered</th><th>Samples/s</th><th>Exposed wait</th>"
            + "<th title=\"mean time per batch in each loader stage, this epoch\">Fill ms/batch</th>"
            + "<th title=\"the part of the fill spent decoding and augmenting\">Transform ms/batch</th>"
            + "<th>Transfer ms/batch</th><th>Step ms/batch</th><th>Slot wait</th>"
            + "<th title=\"time the rank's reading waited for remote storage (an object store, "
            + "HDFS), over all epochs\">Storage wait</th>"
            + "<th>Rows dropped</th>"
            + "<th title=\"samples left out as bad (onBadSample=skip)\">Skipped</th>"
            + "<th>Verdict</th><th>Knob</th></tr></thead>\n<tbody>\n");
    for (RankFigures r : figures) {
      long expected = r.expectedBatches();
      html.append("<tr id=\"stoker-rank-")
          .append(r.rank())
          .append("\"")
          .append(r.rank() == straggler ? " class=\"stoker-straggler\"" : "")
          .append("><td>")
          .append(r.rank())
          .append(r.rank() == straggler ? " (straggler)" : "")
          .append(running && !r.finished() ? " &#9654;" : "")
          .append("</td><td>")
          .append(esc(r.executorId()))
          .append("</td><td>")
          .append(esc(r.host()))
          .append("</td><td>")
          .append(esc(r.device()))
          .append(r.gpu() == null ? "" : " (gpu " + esc(r.gpu()) + ")")
          .append("</td><td>")
          .append(r.batches())
          .append(expected >= 0 ? " of " + expected : " (" + r.batchesPerEpoch() + " per epoch)")
          .append(
              String.format(
                  Locale.ROOT,
                  "</td><td>%.0f</td><td>%s (%.0f%% of step)</td>"
                      + "<td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.0f%%</td><td>%s</td>"
                      + "<td>%d</td><td>%d</td>",
                  r.samplesPerSecond(),
                  seconds(r.waitMillis()),
                  r.waitShare() * 100,
                  r.fillMillis(),
                  r.transformMillis(),
                  r.transferMillis(),
                  r.batches() == 0 ? 0.0 : (double) r.stepMillis() / r.batches(),
                  r.slotWaitShare() * 100,
                  seconds(r.storageWaitMillis()),
                  r.droppedRows(),
                  r.skippedSamples()))
          .append("<td title=\"")
          .append(esc(r.verdictSummary()))
          .append("\">")
          .append(r.verdict() == null ? "&ndash;" : esc(r.verdict()))
          .append("</td><td>")
          .append(knob(r.verdict()))
          .append("</td></tr>\n");
    }
    html.append("</tbody></table>\n");
  }

  /** The option to turn for {@code verdict}. */
  static String knob(String verdict) {
    if (verdict == null) {
      return "&ndash;";
    }
    return switch (verdict) {
      case "pipeline-bound" -> "raise numWorkers or prefetchFactor";
      case "memory-bound" -> "raise maxHostBytes or lower prefetchFactor";
      case "one-worker-saturated" -> "raise numWorkers; look for costly samples";
      case "compute-bound" -> "none: the training step is the limit";
      default -> "none";
    };
  }

  static String seconds(long millis) {
    return millis < 10_000
        ? String.format(Locale.ROOT, "%.2f s", millis / 1000.0)
        : String.format(Locale.ROOT, "%.0f s", millis / 1000.0);
  }

  static String esc(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
