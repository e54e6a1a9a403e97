package dev.stoker.spark.ui;

import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.util.kvstore.KVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Stoker page of a live application, set up once per Spark context at its first run: a listener
 * that keeps the page's store, and the tab. If Spark's internal UI classes are missing or do not
 * fit, there is no page, one log line says so, and runs go on.
 */
public final class StokerUi {
  private static final Logger LOG = LoggerFactory.getLogger(StokerUi.class);
  static final String HOOKS = "dev.stoker.spark.ui.SparkUiHooks";
  private static final Map<SparkContext, StokerUi> BY_CONTEXT = new WeakHashMap<>();

  /** Null when there is no page and no events. */
  private final UiHooks hooks;

  private final String address;
  private final AtomicBoolean postFailed = new AtomicBoolean();

  private StokerUi(UiHooks hooks, String address) {
    this.hooks = hooks;
    this.address = address;
  }

  /** The context's Stoker page, set up if it is not yet. */
  public static StokerUi of(SparkContext spark) {
    synchronized (BY_CONTEXT) {
      return BY_CONTEXT.computeIfAbsent(spark, s -> install(s, HOOKS));
    }
  }

  /** Sets the context's page up anew with the hooks of class {@code hooksClass}. */
  static StokerUi replace(SparkContext spark, String hooksClass) {
    synchronized (BY_CONTEXT) {
      StokerUi ui = install(spark, hooksClass);
      BY_CONTEXT.put(spark, ui);
      return ui;
    }
  }

  private static StokerUi install(SparkContext spark, String hooksClass) {
    UiHooks hooks;
    KVStore store;
    try {
      hooks =
          (UiHooks)
              Class.forName(hooksClass, true, StokerUi.class.getClassLoader())
                  .getDeclaredConstructor()
                  .newInstance();
      store = hooks.liveStore(spark);
      spark.addSparkListener(new StokerStoreListener(store));
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      LOG.warn(
          "stoker: no Stoker page and no Stoker events in the event log: Spark's UI "
              + "classes do not fit ({}); runs go on without them",
          e.toString());
      return new StokerUi(null, null);
    }
    try {
      if (!hooks.attachLive(spark, store)) {
        return new StokerUi(hooks, null); // spark.ui.enabled=false: events only
      }
      String address = spark.uiWebUrl().get() + "/" + SparkUiHooks.PREFIX + "/";
      LOG.info("stoker: the Stoker page is at {}", address);
      return new StokerUi(hooks, address);
    } catch (LinkageError | RuntimeException e) {
      LOG.warn(
          "stoker: no Stoker page in the Spark UI: its classes do not fit ({}); runs go on, "
              + "and their events still reach the event log",
          e.toString());
      return new StokerUi(hooks, null);
    }
  }

  /** The page's address, or null when there is none. */
  public String address() {
    return address;
  }

  /** Whether events are posted (Spark's listener bus was reachable). */
  public boolean posting() {
    return hooks != null;
  }

  /** Posts {@code event}; a failure is logged, never thrown. */
  void post(SparkContext spark, SparkListenerEvent event) {
    if (hooks == null) {
      return;
    }
    try {
      hooks.post(spark, event);
    } catch (LinkageError | RuntimeException e) {
      if (!postFailed.getAndSet(true)) {
        LOG.warn(
            "stoker: posting Stoker events failed ({}); the Stoker page and the event log "
                + "miss them, runs go on",
            e.toString());
      }
    }
  }

  /** Posts that a {@code format("stoker")} scan was planned; a failure is logged, never thrown. */
  public void read(SparkContext spark, StokerRead read) {
    post(spark, read);
  }

  /** The events of one run, posted as it goes. */
  public RunEvents run(SparkContext spark, StokerRunStart start) {
    post(spark, start);
    return new RunEvents(this, spark, start.runId());
  }
}
