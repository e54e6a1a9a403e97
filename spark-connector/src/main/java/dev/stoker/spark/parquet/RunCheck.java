package dev.stoker.spark.parquet;

/** The errors of a run whose file no longer matches the footer planning read. */
public final class RunCheck {
  private RunCheck() {}

  static IllegalStateException changed(ReadRun run, long rows) {
    return new IllegalStateException(
        String.format(
            "%s: the reader found %d rows where the "
                + "footer read when planning said %d (expected: files unchanged while they are read; "
                + "load again)",
            run.describe(), rows, run.groupRows()));
  }

  static IllegalStateException endedEarly(ReadRun run) {
    return new IllegalStateException(
        run.describe()
            + " ended before the rows its footer "
            + "promised (expected: files unchanged while they are read; load again)");
  }
}
