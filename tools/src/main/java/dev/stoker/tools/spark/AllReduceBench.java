package dev.stoker.tools.spark;

import dev.stoker.spark.collective.AllReduceAlgorithm;
import dev.stoker.spark.collective.Collective;
import dev.stoker.spark.collective.Rendezvous;
import dev.stoker.spark.collective.Waits;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code allreduce} benchmark: for every world size and array length, the time of one {@code
 * allReduceSum(float[])} by the star and by the ring, ranks as threads of this JVM on the loopback
 * (every frame sealed, as always). The two algorithms alternate call by call in one meeting, so
 * that both see the same machine; rank 0's median counts.
 */
public final class AllReduceBench {
  /** The workload's name on the command line. */
  public static final String WORKLOAD = "allreduce";

  /** What the ranks' links are when they are threads of one JVM. */
  static final String LOOPBACK = "loopback (threads of one JVM)";

  /** What to run: every world size with every length, {@code repeats} timed calls each. */
  public record Config(List<Integer> ranks, List<Integer> floats, int repeats, int warmup) {
    public Config {
      ranks = List.copyOf(ranks);
      floats = List.copyOf(floats);
      if (ranks.isEmpty() || floats.isEmpty() || repeats <= 0 || warmup < 0) {
        throw new IllegalArgumentException(
            "ranks "
                + ranks
                + ", floats "
                + floats
                + ", repeats "
                + repeats
                + ", warmup "
                + warmup
                + " (expected: some ranks and floats, repeats > 0, "
                + "warmup >= 0)");
      }
      for (int r : ranks) {
        if (r < 2) {
          throw new IllegalArgumentException(
              "ranks: " + r + " (expected: >= 2; one rank " + "reduces nothing)");
        }
      }
    }
  }

  private AllReduceBench() {}

  /** Runs every world size in turn, telling each figure on {@code progress}. */
  public static AllReduceResult run(Config config, PrintWriter progress) {
    List<AllReduceResult.Row> rows = new ArrayList<>();
    for (int ranks : config.ranks()) {
      rows.addAll(threads(ranks, config, progress));
    }
    return new AllReduceResult(config, rows);
  }

  private static List<AllReduceResult.Row> threads(int ranks, Config config, PrintWriter progress) {
    CyclicBarrier in = new CyclicBarrier(ranks);
    CyclicBarrier out = new CyclicBarrier(ranks);
    String[] messages = new String[ranks];
    ExecutorService threads = Executors.newFixedThreadPool(ranks);
    try {
      List<Future<List<AllReduceResult.Row>>> futures = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        int rank = r;
        Rendezvous rendezvous =
            message -> {
              try {
                messages[rank] = message;
                in.await(60, TimeUnit.SECONDS);
                String[] all = messages.clone();
                out.await(60, TimeUnit.SECONDS);
                return all;
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("rank " + rank + ": interrupted in the meeting", e);
              } catch (BrokenBarrierException | TimeoutException e) {
                throw new IllegalStateException("rank " + rank + ": the meeting failed: " + e, e);
              }
            };
        futures.add(
            threads.submit(
                () -> {
                  try (Collective collective =
                      Collective.connect(
                          rank,
                          ranks,
                          0,
                          "127.0.0.1",
                          rendezvous,
                          Waits.of(Duration.ofMinutes(2)))) {
                    return measure(collective, config, LOOPBACK, null, progress);
                  }
                }));
      }
      List<AllReduceResult.Row> rows = null;
      for (Future<List<AllReduceResult.Row>> future : futures) {
        List<AllReduceResult.Row> one = future.get();
        rows = rows == null ? one : rows;
      }
      return rows;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("the allreduce benchmark was interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "the allreduce benchmark failed on " + ranks + " ranks: " + e.getCause(), e.getCause());
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * A one-float all-reduce by the star: returns once every rank is done with what came before. Rank
   * 0's last write of a star call leaves while the other ranks still read it; without this, that
   * tail would count in the next call's time instead of this one's.
   */
  private static void inStep(Collective collective, float[] one) {
    collective.algorithm(AllReduceAlgorithm.STAR);
    collective.allReduceSum(one);
  }

  /**
   * One rank's part: every length, the star and the ring alternating call by call, each timed from
   * the moment every rank is done with the call before to the moment every rank holds the result
   * ({@link #inStep}). Returns rank 0's figures (medians of its calls); other ranks return an empty
   * list.
   *
   * @param links what connects the ranks, for the figures
   * @param linkLimit the bandwidth of a rank's link in GB/s, or null where none is set
   */
  public static List<AllReduceResult.Row> measure(
      Collective collective, Config config, String links, Double linkLimit, PrintWriter progress) {
    List<AllReduceResult.Row> rows = new ArrayList<>();
    AllReduceAlgorithm[] algorithms = {AllReduceAlgorithm.STAR, AllReduceAlgorithm.RING};
    for (int floats : config.floats()) {
      float[] values = new float[floats];
      long[][] nanos = new long[algorithms.length][config.repeats()];
      float[] one = new float[1];
      for (int call = -config.warmup(); call < config.repeats(); call++) {
        for (int a = 0; a < algorithms.length; a++) {
          Arrays.fill(values, collective.rank() + 1);
          inStep(collective, one);
          collective.algorithm(algorithms[a]);
          long start = System.nanoTime();
          collective.allReduceSum(values);
          inStep(collective, one);
          if (call >= 0) {
            nanos[a][call] = System.nanoTime() - start;
          }
        }
      }
      if (collective.rank() != 0) {
        continue;
      }
      for (int a = 0; a < algorithms.length; a++) {
        Arrays.sort(nanos[a]);
        AllReduceResult.Row row =
            new AllReduceResult.Row(
                collective.worldSize(),
                floats,
                algorithms[a],
                links,
                nanos[a][config.repeats() / 2] / 1e9,
                linkLimit);
        rows.add(row);
        if (progress != null) {
          progress.printf(
              Locale.ROOT,
              "stoker: %d ranks, %,d floats, %s: %.4f s, busbw %.3f " + "GB/s%n",
              row.ranks(),
              row.floats(),
              row.algorithm(),
              row.seconds(),
              row.busbwGbPerSecond());
          progress.flush();
        }
      }
    }
    return rows;
  }
}
