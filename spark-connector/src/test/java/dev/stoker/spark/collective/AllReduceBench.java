package dev.stoker.spark.collective;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Time per call of the ranks' all-reduce, ranks as threads of one JVM on the loopback, without
 * Spark: {@code java -cp <test class path> dev.stoker.spark.collective.AllReduceBench floats ranks
 * calls} prints the median and quartiles of rank 0's calls. Frames are encrypted and authenticated
 * (AES-256-GCM), as always. A figure to read, not a test.
 */
public final class AllReduceBench {
  private AllReduceBench() {}

  public static void main(String[] args) throws Exception {
    int floats = Integer.parseInt(args[0]);
    int ranks = Integer.parseInt(args[1]);
    int calls = Integer.parseInt(args[2]);
    int warmUp = Math.max(3, calls / 5);
    List<Object> results =
        ThreadRanks.run(
            ranks,
            Duration.ofMinutes(5),
            collective -> {
              float[] values = new float[floats];
              long[] nanos = new long[calls];
              for (int i = -warmUp; i < calls; i++) {
                Arrays.fill(values, collective.rank() + 1);
                long start = System.nanoTime();
                collective.allReduceMean(values);
                if (i >= 0) {
                  nanos[i] = System.nanoTime() - start;
                }
              }
              Arrays.sort(nanos);
              return nanos;
            });
    if (!(results.get(0) instanceof long[])) {
      throw new IllegalStateException("rank 0 failed", (Throwable) results.get(0));
    }
    long[] nanos = (long[]) results.get(0);
    System.out.println(
        String.format(
            Locale.ROOT,
            "allReduceMean of %d floats, %d ranks: "
                + "median %.3f ms (quartiles %.3f .. %.3f ms, %d calls)",
            floats,
            ranks,
            nanos[calls / 2] / 1e6,
            nanos[calls / 4] / 1e6,
            nanos[3 * calls / 4] / 1e6,
            calls));
  }
}
