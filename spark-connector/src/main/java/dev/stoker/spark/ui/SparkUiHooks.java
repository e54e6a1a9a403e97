package dev.stoker.spark.ui;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.ui.SparkUI;
import org.apache.spark.ui.SparkUITab;
import org.apache.spark.ui.UIUtils;
import org.apache.spark.ui.WebUIPage;
import org.apache.spark.util.kvstore.KVStore;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.xml.Node;
import scala.xml.Unparsed;

/**
 * The one place that uses Spark's UI internals (public in the bytecode, {@code private[spark]} in
 * Scala): the listener bus, the status store, a tab with its page. One build serves Spark 3.5
 * (Scala 2.12, {@code javax.servlet}) and 4 (Scala 2.13, {@code jakarta.servlet}): the page renders
 * for either request type and answers the {@code scala.collection.immutable.Seq} both accept;
 * Spark's page frame is called by name, as its request type differs.
 */
public final class SparkUiHooks implements UiHooks {
  /** The tab's path under the UI's root. */
  public static final String PREFIX = "stoker";

  @Override
  public KVStore liveStore(SparkContext spark) {
    return spark.statusStore().store();
  }

  @Override
  public void post(SparkContext spark, SparkListenerEvent event) {
    spark.listenerBus().post(event);
  }

  @Override
  public boolean attachLive(SparkContext spark, KVStore store) {
    Option<SparkUI> ui = spark.ui();
    if (ui.isEmpty()) {
      return false;
    }
    attach(ui.get(), store, true);
    return true;
  }

  /** Adds the tab to {@code ui}, the page drawn from {@code store}. */
  static void attach(SparkUI ui, KVStore store, boolean live) {
    ui.attachTab(new Tab(ui, store, live));
  }

  /** The Stoker tab. */
  static final class Tab extends SparkUITab {
    Tab(SparkUI parent, KVStore store, boolean live) {
      super(parent, PREFIX);
      attachPage(new Page(this, store, live));
    }
  }

  /** The tab's one page: Spark's frame around {@link StokerPage#content}. */
  static final class Page extends WebUIPage {
    private final Tab tab;
    private final KVStore store;
    private final boolean live;

    Page(Tab tab, KVStore store, boolean live) {
      super("");
      this.tab = tab;
      this.store = store;
      this.live = live;
    }

    /** Spark 3.5. */
    public Seq<Node> render(javax.servlet.http.HttpServletRequest request) {
      return page(request);
    }

    /** Spark 4. */
    public Seq<Node> render(jakarta.servlet.http.HttpServletRequest request) {
      return page(request);
    }

    @SuppressWarnings("unchecked")
    private Seq<Node> page(Object request) {
      String html;
      try {
        html = StokerPage.content(store, live);
      } catch (Exception e) {
        html = "<p>The Stoker page could not be drawn: " + StokerPage.esc(e.toString()) + "</p>";
      }
      Unparsed content = new Unparsed(html);
      scala.Function0<Object> body = () -> content;
      try {
        return (Seq<Node>)
            frame().invoke(null, request, "Stoker", body, tab, Option.empty(), false, false);
      } catch (InvocationTargetException e) {
        throw new IllegalStateException("Spark's page frame failed: " + e.getCause(), e.getCause());
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("Spark's page frame cannot be called: " + e, e);
      }
    }
  }

  /** {@code UIUtils.headerSparkPage(request, title, content, tab, helpText, vis, tables)}. */
  private static Method frame() throws NoSuchMethodException {
    for (Method m : UIUtils.class.getMethods()) {
      if (m.getName().equals("headerSparkPage") && m.getParameterCount() == 7) {
        return m;
      }
    }
    throw new NoSuchMethodException("UIUtils.headerSparkPage with 7 parameters");
  }
}
