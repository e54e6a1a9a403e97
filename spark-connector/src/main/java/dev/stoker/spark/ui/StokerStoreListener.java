package dev.stoker.spark.ui;

import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.util.kvstore.KVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Stoker's events into the page's views in a status store: live, the driver's store; in the
 * History Server, the store it rebuilds from the event log. It keeps the latest {@value #MAX_RUNS}
 * runs. A failure is logged once, never rethrown: the page may go stale, the application goes on.
 */
public final class StokerStoreListener extends SparkListener {
  private static final Logger LOG = LoggerFactory.getLogger(StokerStoreListener.class);

  /** Runs the page keeps; an application with more shows its latest. */
  static final int MAX_RUNS = 100;

  private final KVStore store;
  private boolean failed;

  public StokerStoreListener(KVStore store) {
    this.store = store;
  }

  @Override
  public void onOtherEvent(SparkListenerEvent event) {
    try {
      if (event instanceof StokerRunStart start) {
        forgetOldRuns();
        store.write(new RunView(start.runId(), start, 0, null, List.of()));
      } else if (event instanceof StokerRankUpdate update) {
        RankFigures figures = update.figures();
        RankView view = read(RankView.class, RankView.id(update.runId(), figures.rank()));
        store.write(
            view == null
                ? RankView.first(update.runId(), update.time(), figures)
                : view.next(update.time(), figures));
      } else if (event instanceof StokerRead read) {
        store.write(new ReadView(read.readId(), read));
      } else if (event instanceof StokerRunEnd end) {
        RunView run = read(RunView.class, end.runId());
        if (run != null) {
          store.write(
              new RunView(run.runId, run.start, end.time(), end.failure(), end.epochOrders()));
        }
      }
    } catch (Exception | LinkageError e) { // a LinkageError would stop Spark's listener thread
      if (!failed) {
        failed = true;
        LOG.warn(
            "stoker: the Stoker page's store could not take {}; the page may be stale",
            event.getClass().getSimpleName(),
            e);
      }
    }
  }

  /** Keeps the store at most {@link #MAX_RUNS} runs: the oldest go, with their ranks. */
  private void forgetOldRuns() throws Exception {
    if (store.count(RunView.class) < MAX_RUNS) {
      return;
    }
    RunView oldest = null;
    for (RunView run : store.view(RunView.class)) {
      oldest = oldest == null || run.start.time() < oldest.start.time() ? run : oldest;
    }
    for (int rank = 0; rank < oldest.start.worldSize(); rank++) {
      if (read(RankView.class, RankView.id(oldest.runId, rank)) != null) {
        store.delete(RankView.class, RankView.id(oldest.runId, rank));
      }
    }
    store.delete(RunView.class, oldest.runId);
  }

  private <T> T read(Class<T> type, Object key) throws Exception {
    try {
      return store.read(type, key);
    } catch (NoSuchElementException e) {
      return null;
    }
  }
}
