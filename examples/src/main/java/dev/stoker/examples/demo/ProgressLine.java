package dev.stoker.examples.demo;

import dev.stoker.spark.RankProgress;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A progress bar on one updating line of a terminal: batches delivered to every rank so far out of
 * those expected, redrawn from the ranks' progress reports ({@code onProgress}) while a Spark stage
 * runs. Called on Spark's listener thread.
 */
final class ProgressLine implements Consumer<RankProgress> {
  private static final int WIDTH = 30;

  private final PrintStream err;
  private final String label;
  private final long expected;
  private final Map<Integer, Long> delivered = new HashMap<>();
  private int drawn;
  private long shown = -1;

  /**
   * @param expected batches over all ranks when the stage is done
   */
  ProgressLine(PrintStream err, String label, long expected) {
    this.err = err;
    this.label = label;
    this.expected = Math.max(expected, 1);
  }

  @Override
  public synchronized void accept(RankProgress progress) {
    delivered.put(progress.rank(), progress.batchesDelivered());
    long done = Math.min(delivered.values().stream().mapToLong(Long::longValue).sum(), expected);
    if (done == shown) {
      return;
    }
    shown = done;
    int filled = (int) (done * WIDTH / expected);
    String line =
        String.format(
            "%s [%s%s] %d/%d batches",
            label, "#".repeat(filled), ".".repeat(WIDTH - filled), done, expected);
    err.print("\r" + line + " ".repeat(Math.max(0, drawn - line.length())));
    err.flush();
    drawn = line.length();
  }

  /** Clears the line, so that the next output starts on an empty line. */
  synchronized void clear() {
    if (drawn > 0) {
      err.print("\r" + " ".repeat(drawn) + "\r");
      err.flush();
      drawn = 0;
    }
  }
}
