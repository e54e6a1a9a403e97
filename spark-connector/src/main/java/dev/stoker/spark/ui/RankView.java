package dev.stoker.spark.ui;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.util.kvstore.KVIndex;

/**
 * One rank of a run as the Stoker page shows it: its latest figures and its exposed wait over time
 * (the share of each interval between two updates that it waited for data).
 */
public final class RankView {
  /** Points kept per rank: when full, every other one goes. */
  static final int MAX_POINTS = 240;

  @KVIndex public final String id;
  public final String runId;
  public final RankFigures figures;

  /** When the driver received the figures, in ms since the epoch. */
  public final long time;

  public final List<WaitPoint> series;

  /** Exposed wait over one interval. */
  public record WaitPoint(long time, double waitShare) {}

  @JsonCreator
  public RankView(
      @JsonProperty("id") String id,
      @JsonProperty("runId") String runId,
      @JsonProperty("figures") RankFigures figures,
      @JsonProperty("time") long time,
      @JsonProperty("series") List<WaitPoint> series) {
    this.id = id;
    this.runId = runId;
    this.figures = figures;
    this.time = time;
    this.series = List.copyOf(series);
  }

  static String id(String runId, int rank) {
    return runId + "/" + rank;
  }

  /** The first view of a rank. */
  static RankView first(String runId, long time, RankFigures figures) {
    return new RankView(
        id(runId, figures.rank()),
        runId,
        figures,
        time,
        List.of(new WaitPoint(time, figures.waitShare())));
  }

  /** This view with newer {@code next} figures, received at {@code at}. */
  RankView next(long at, RankFigures next) {
    if (next.batches() < figures.batches() || (figures.finished() && !next.finished())) {
      return this; // an older heartbeat, arriving late
    }
    long waited = next.waitMillis() - figures.waitMillis();
    long stepped = next.stepMillis() - figures.stepMillis();
    List<WaitPoint> points = new ArrayList<>(series);
    if (waited + stepped > 0) {
      if (points.size() >= MAX_POINTS) {
        List<WaitPoint> thinned = new ArrayList<>();
        for (int i = 0; i < points.size(); i += 2) {
          thinned.add(points.get(i));
        }
        points = thinned;
      }
      points.add(new WaitPoint(at, (double) Math.max(0, waited) / (waited + stepped)));
    }
    return new RankView(id, runId, next, at, points);
  }
}
