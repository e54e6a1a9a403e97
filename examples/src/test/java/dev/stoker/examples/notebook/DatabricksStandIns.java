package dev.stoker.examples.notebook;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What a Databricks notebook finds in scope and a local run has to stand in for: the session
 * ({@code spark}, {@code sc}), {@code display(df)}, {@code displayHTML} and {@code
 * dbutils.widgets}. The interpreted notebook reaches them through {@link #PRELUDE}, which defines
 * those names over the static methods here; one notebook runs at a time.
 */
public final class DatabricksStandIns {
  /** Interpreted before the first cell. */
  static final String PRELUDE =
      String.join(
          "\n",
          "@transient val spark = dev.stoker.examples.notebook.DatabricksStandIns.spark()",
          "@transient val sc = spark.sparkContext",
          "def display(frame: org.apache.spark.sql.Dataset[_]): Unit =",
          "  dev.stoker.examples.notebook.DatabricksStandIns.display(frame)",
          "def displayHTML(html: String): Unit = println(html)",
          "object dbutils {",
          "  object widgets {",
          "    def text(name: String, defaultValue: String, label: String): Unit =",
          "      dev.stoker.examples.notebook.DatabricksStandIns.widget(name, defaultValue)",
          "    def get(name: String): String =",
          "      dev.stoker.examples.notebook.DatabricksStandIns.widget(name)",
          "  }",
          "}");

  /** A frame given to {@code display}: its columns and its rows. */
  public record Displayed(List<String> columns, List<Row> rows) {}

  private static SparkSession session;
  private static final Map<String, String> WIDGETS = new LinkedHashMap<>();
  private static final List<Displayed> DISPLAYED = new ArrayList<>();
  private static final Map<String, Object> RECORDED = new LinkedHashMap<>();

  private DatabricksStandIns() {}

  /** Starts a notebook's run: its session, and widget values that win over their defaults. */
  static synchronized void open(SparkSession spark, Map<String, String> widgets) {
    session = spark;
    WIDGETS.clear();
    WIDGETS.putAll(widgets);
    DISPLAYED.clear();
    RECORDED.clear();
  }

  public static synchronized SparkSession spark() {
    if (session == null) {
      throw new IllegalStateException("spark: no session (expected: open(...) before the run)");
    }
    return session;
  }

  /** Shows the first rows, as Databricks' table does, and keeps them for the test. */
  public static void display(Dataset<?> frame) {
    Dataset<Row> rows = frame.toDF();
    List<Row> collected = rows.limit(1000).collectAsList();
    rows.show(20, false);
    synchronized (DatabricksStandIns.class) {
      DISPLAYED.add(new Displayed(List.of(rows.columns()), collected));
    }
  }

  /** {@code dbutils.widgets.text}: the widget keeps a value given to the run, else its default. */
  public static synchronized void widget(String name, String defaultValue) {
    WIDGETS.putIfAbsent(name, defaultValue);
  }

  /** {@code dbutils.widgets.get}. */
  public static synchronized String widget(String name) {
    String value = WIDGETS.get(name);
    if (value == null) {
      throw new IllegalArgumentException(
          "widget '"
              + name
              + "': not defined (expected: one of "
              + WIDGETS.keySet()
              + "; define it with dbutils.widgets.text first)");
    }
    return value;
  }

  /** Keeps a value of the notebook for the test to check. */
  public static synchronized void record(String name, Object value) {
    RECORDED.put(name, value);
  }

  static synchronized List<Displayed> displayed() {
    return List.copyOf(DISPLAYED);
  }

  static synchronized Object recorded(String name) {
    return RECORDED.get(name);
  }
}
