package dev.stoker.spark.options;

/** Who reads an option; the reference page has a table per layer. */
public enum OptionLayer {
  /** A loader knob, the same on every rank ({@code LoaderOptions}): read by both sides. */
  LOADER(
      "The loader's knobs",
      "The same on every rank: `LoaderOptions` in code, the same names as strings to a "
          + "`format(\"stoker\")` read and to `StokerSpark`."),
  /** Where a loader sits among the ranks ({@code worldSize}): read by both sides. */
  PLACEMENT(
      "Placement",
      "How many ranks share the data. A `format(\"stoker\")` read yields one partition per rank; "
          + "a run needs it, from `worldSize(n)`, an option or its `format(\"stoker\")` read. "
          + "Each rank's own number is its partition's, never an option."),
  /** The DataSource's read ({@code format("stoker")}). */
  SOURCE(
      "The `format(\"stoker\")` read",
      "Options of `spark.read.format(\"stoker\")` (Scala, Java, SQL `OPTIONS`, PySpark and "
          + "`stoker.torch.read`), beside the loader's knobs and `worldSize`; any other name with "
          + "a dot is a Hadoop setting for the read."),
  /** The runner's run ({@code StokerSpark}). */
  RUN(
      "The run (`StokerSpark`)",
      "Options of `StokerSpark.on(df)...run(...)`: `SparkRunOptions` in code, or "
          + "`option(name, value)` beside the loader's knobs and `worldSize`."),
  /**
   * A Spark setting only ({@code spark.stoker.<name>}), read by the executors or the Python bridge:
   * never an option of a read or a run, and no reader of options takes it.
   */
  SETTING(
      "Spark settings",
      "Read from the Spark configuration only, as `spark.stoker.<name>` (`--conf` at submit, or "
          + "the session's configuration), by the executors or the Python bridge: never an "
          + "option of a read or a run.");

  private final String title;
  private final String description;

  OptionLayer(String title, String description) {
    this.title = title;
    this.description = description;
  }

  /** The heading of its table on the reference page. */
  public String title() {
    return title;
  }

  /** What the reference page says of it, in Markdown. */
  public String description() {
    return description;
  }
}
