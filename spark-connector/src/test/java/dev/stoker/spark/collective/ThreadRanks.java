package dev.stoker.spark.collective;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Ranks as threads of this JVM, on the loopback: a rendezvous through a barrier stands in for
 * Spark's allGather. {@link #run} gives each rank its connected collective and returns what each
 * returned, or the exception each threw, index = rank.
 */
final class ThreadRanks {
  /** What a rank does with its collective. */
  interface Body<T> {
    T run(Collective collective) throws Exception;
  }

  private ThreadRanks() {}

  /** An allGather among {@code ranks} threads. */
  static final class Gather {
    private final String[] messages;
    private final CyclicBarrier in;
    private final CyclicBarrier out;

    Gather(int ranks) {
      messages = new String[ranks];
      in = new CyclicBarrier(ranks);
      out = new CyclicBarrier(ranks);
    }

    Rendezvous of(int rank) {
      return message -> {
        try {
          messages[rank] = message;
          in.await(20, TimeUnit.SECONDS);
          String[] all = messages.clone();
          out.await(20, TimeUnit.SECONDS);
          return all;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        } catch (BrokenBarrierException | TimeoutException e) {
          throw new IllegalStateException(e);
        }
      };
    }
  }

  static <T> List<Object> run(int ranks, Duration timeout, Body<T> body) throws Exception {
    Gather gather = new Gather(ranks);
    ExecutorService threads = Executors.newFixedThreadPool(ranks);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        int rank = r;
        futures.add(threads.submit(() -> {
          try (Collective collective = Collective.connect(rank, ranks, 0, "127.0.0.1",
              gather.of(rank), Waits.of(timeout))) {
            return body.run(collective);
          }
        }));
      }
      List<Object> results = new ArrayList<>();
      for (Future<T> future : futures) {
        try {
          results.add(future.get(60, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          results.add(e.getCause());
        }
      }
      return results;
    } finally {
      threads.shutdownNow();
      threads.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
