package dev.stoker.spark.ui;

import java.util.NoSuchElementException;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.util.kvstore.KVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Stoker's events into the page's views in a status store: live, the driver's store; in the
 * History Server, the store it rebuilds from the event log. A failure is logged once, never
 * rethrown: the page may go stale, the application goes on.
 */
public final class StokerStoreListener extends SparkListener {
  private static final Logger LOG = LoggerFactory.getLogger(StokerStoreListener.class);

  private final KVStore store;
  private boolean failed;

  public StokerStoreListener(KVStore store) {
    this.store = store;
  }

  @Override
  public void onOtherEvent(SparkListenerEvent event) {
    try {
      if (event instanceof StokerRunStart start) {
        store.write(new RunView(start.runId(), start, 0, null));
      } else if (event instanceof StokerRankUpdate update) {
        RankFigures figures = update.figures();
        RankView view = read(RankView.class, RankView.id(update.runId(), figures.rank()));
        store.write(view == null ? RankView.first(update.runId(), update.time(), figures)
            : view.next(update.time(), figures));
      } else if (event instanceof StokerRead read) {
        store.write(new ReadView(read.readId(), read));
      } else if (event instanceof StokerRunEnd end) {
        RunView run = read(RunView.class, end.runId());
        if (run != null) {
          store.write(new RunView(run.runId, run.start, end.time(), end.failure()));
        }
      }
    } catch (Exception e) {
      if (!failed) {
        failed = true;
        LOG.warn("stoker: the Stoker page's store could not take {}; the page may be stale",
            event.getClass().getSimpleName(), e);
      }
    }
  }

  private <T> T read(Class<T> type, Object key) throws Exception {
    try {
      return store.read(type, key);
    } catch (NoSuchElementException e) {
      return null;
    }
  }
}
