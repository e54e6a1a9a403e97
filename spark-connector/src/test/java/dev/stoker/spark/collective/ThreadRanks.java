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

  /** What each rank sees of an allGather: the test's hand in it (a stranger, a relay). */
  interface View {
    String[] of(int rank, String[] all);
  }

  /** An allGather among {@code ranks} threads. */
  static final class Gather {
    private final String[] messages;
    private final CyclicBarrier in;
    private final CyclicBarrier out;
    private final View view;

    Gather(int ranks) {
      this(ranks, () -> {}, (rank, all) -> all);
    }

    /** {@code whenAll} runs once every message is in, before any rank sees them. */
    Gather(int ranks, Runnable whenAll, View view) {
      messages = new String[ranks];
      in = new CyclicBarrier(ranks, whenAll);
      out = new CyclicBarrier(ranks);
      this.view = view;
    }

    /** Rank 0's message: where it listens, for a test to read. */
    String first() {
      return messages[0];
    }

    /** Rank {@code rank}'s message: for ranks but 0, where it listens for the ring. */
    String message(int rank) {
      return messages[rank];
    }

    Rendezvous of(int rank) {
      return message -> {
        try {
          messages[rank] = message;
          in.await(20, TimeUnit.SECONDS);
          String[] all = messages.clone();
          out.await(20, TimeUnit.SECONDS);
          return view.of(rank, all);
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
    return run(new Gather(ranks), ranks, timeout, body);
  }

  static <T> List<Object> run(Gather gather, int ranks, Duration timeout, Body<T> body)
      throws Exception {
    return run(gather, ranks, timeout, ListenOn.any("127.0.0.1"), body);
  }

  static <T> List<Object> run(
      Gather gather, int ranks, Duration timeout, ListenOn listenOn, Body<T> body)
      throws Exception {
    return run(gather, ranks, listenOn, rank -> Waits.of(timeout), body);
  }

  /** Ranks whose waits {@code waits} gives, e.g. with a cancellation check of their own. */
  static <T> List<Object> run(
      Gather gather,
      int ranks,
      ListenOn listenOn,
      java.util.function.IntFunction<Waits> waits,
      Body<T> body)
      throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(ranks);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        int rank = r;
        futures.add(
            threads.submit(
                () -> {
                  try (Collective collective =
                      Collective.connect(
                          rank, ranks, 0, listenOn, gather.of(rank), waits.apply(rank))) {
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
