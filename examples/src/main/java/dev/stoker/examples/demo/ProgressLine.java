package dev.stoker.examples.demo;

import dev.stoker.spark.RankProgress;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A progress bar on one updating line of a terminal, redrawn from the ranks' progress reports
 * ({@code onProgress}) while the training stage runs: the epoch the ranks are in and the batches of
 * it delivered to every rank so far, out of those an epoch holds. Called on Spark's listener
 * thread.
 */
final class ProgressLine implements Consumer<RankProgress> {
  private static final int WIDTH = 30;

  private final PrintStream err;
  private final int epochs;
  private final long perEpoch;
  private final Map<Integer, Long> delivered = new HashMap<>();
  private int drawn;
  private long shown = -1;

  /**
   * @param epochs the epochs the stage runs
   * @param perEpoch batches over all ranks in one epoch
   */
  ProgressLine(PrintStream err, int epochs, long perEpoch) {
    this.err = err;
    this.epochs = Math.max(epochs, 1);
    this.perEpoch = Math.max(perEpoch, 1);
  }

  @Override
  public synchronized void accept(RankProgress progress) {
    delivered.put(progress.rank(), progress.batchesDelivered());
    long done =
        Math.min(delivered.values().stream().mapToLong(Long::longValue).sum(), perEpoch * epochs);
    if (done == shown) {
      return;
    }
    shown = done;
    // an epoch's last batch still shows as that epoch's, full
    int epoch = (int) Math.min(Math.max(done - 1, 0) / perEpoch, epochs - 1);
    long inEpoch = done - epoch * perEpoch;
    int filled = (int) (inEpoch * WIDTH / perEpoch);
    String line =
        String.format(
            "epoch %d/%d [%s%s] %d/%d batches",
            epoch + 1, epochs, "#".repeat(filled), ".".repeat(WIDTH - filled), inEpoch, perEpoch);
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
