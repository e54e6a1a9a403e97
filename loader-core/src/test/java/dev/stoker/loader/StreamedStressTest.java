package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many random loaders of random streams, each ended in a random way: to its end, by an early close,
 * by a failure of the stream, or by closing the loader from another thread. Whatever the way, the
 * rows delivered are right, and nothing is left: no slot, no thread, no chunk or stream open, no
 * breach of the stream contract.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamedStressTest {

  private enum Ending {
    COMPLETE,
    EARLY_CLOSE,
    FAILURE,
    CLOSE_FROM_ANOTHER_THREAD
  }

  static LongStream seeds() {
    return LongStream.range(0, 60);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void shouldLeaveNothingBehindWhicheverWayAnEpochEnds(long seed) throws Exception {
    Random random = new Random(seed);
    int workers = random.nextInt(4);
    boolean dropLast = random.nextBoolean();
    boolean reuse = random.nextBoolean();
    boolean known = random.nextBoolean() || (reuse && dropLast && workers == 0);
    int rows = 50 + random.nextInt(400);
    int batchSize = 1 + random.nextInt(20);
    Ending ending = Ending.values()[random.nextInt(Ending.values().length)];
    TestStream stream =
        (known ? TestStream.known(rows) : TestStream.unknown(rows))
            .randomChunks(seed, 0, 1, 3, 7, 16, 64);
    if (reuse) {
      stream.reusing();
    }
    if (random.nextBoolean()) {
      stream.typed();
    }
    if (random.nextInt(3) == 0) {
      stream.sleepingUpTo(200);
    }
    LoaderOptions.Builder b =
        LoaderOptions.builder().batchSize(batchSize).numWorkers(workers).dropLast(dropLast);
    if (workers > 0) {
      b.prefetchFactor(1 + random.nextInt(3)).persistentWorkers(random.nextBoolean());
    }
    DataLoader loader = new DataLoader(stream, b.build());
    long expectedRows = dropLast ? rows / batchSize * batchSize : rows;
    int stopAt = random.nextInt((int) Math.max(1, expectedRows / batchSize) + 1);
    String run =
        String.format(
            "seed %d: %s, %d rows of %s length in batches of %d, "
                + "numWorkers=%d, dropLast=%s, reusing=%s, stop at batch %d",
            seed,
            ending,
            rows,
            known ? "known" : "unknown",
            batchSize,
            workers,
            dropLast,
            reuse,
            stopAt);

    boolean lastBatchHeld = false;
    switch (ending) {
      case COMPLETE -> {
        assertThat(StreamedRows.Epoch.of(loader.epoch(0)).labels())
            .as(run)
            .containsExactlyElementsOf(StreamedRows.range(expectedRows));
        lastBatchHeld = expectedRows > 0;
      }
      case EARLY_CLOSE -> {
        try (BatchIterator it = loader.epoch(0).iterator()) {
          for (int i = 0; i < stopAt && it.hasNext(); i++) {
            assertThat(StreamedRows.rows(it.next())).as(run).startsWith((long) i * batchSize);
          }
        }
      }
      case FAILURE ->
          lastBatchHeld =
              !failAt(stream, random, stopAt * (long) batchSize, loader, run) && expectedRows > 0;
      case CLOSE_FROM_ANOTHER_THREAD -> closeFromAnotherThread(loader, stopAt, run);
      default -> throw new AssertionError(ending);
    }

    if (ending != Ending.CLOSE_FROM_ANOTHER_THREAD) {
      assertThat(loader.slotsOut())
          .as(run + ": slots out, the last batch of a whole epoch " + "aside")
          .isEqualTo(lastBatchHeld ? 1 : 0);
      stream.copying((field, row, target) -> false).onNext(i -> {});
      assertThat(StreamedRows.Epoch.of(loader.epoch(1)).labels())
          .as(run)
          .containsExactlyElementsOf(StreamedRows.range(expectedRows));
    }
    stream.awaitStreamsClosed();
    LoaderLeaks.closeAndCheck(loader);
    stream.awaitStreamsClosed();
    assertThat(stream.violations).as(run).isEmpty();
    stream.assertAllClosed();
  }

  /**
   * A copy or a pull at stream row {@code row} fails; the epoch fails there (true), or ends before
   * (false).
   */
  private static boolean failAt(
      TestStream stream, Random random, long row, DataLoader loader, String run) {
    Throwable cause =
        random.nextBoolean()
            ? new IOException("bad row " + row)
            : new StackOverflowError("bad row " + row);
    if (random.nextBoolean()) {
      stream.copying(
          (field, first, target) -> {
            if (first <= row && row < first + target.rows()) {
              throw TestStream.asException(cause);
            }
            return false;
          });
    } else {
      stream.onNext(
          i -> {
            if (i == 3) {
              throw TestStream.asException(cause);
            }
          });
    }
    List<Integer> seen = new ArrayList<>();
    try {
      for (Batch batch : loader.epoch(0)) {
        StreamedRows.rows(batch);
        seen.add(batch.index());
      }
    } catch (BatchLoadException e) {
      assertThat(e).as(run).hasRootCause(cause);
      assertThat(e.batch()).as(run).isEqualTo(seen.size());
      assertThat(e.epoch()).isZero();
      return true;
    }
    return false;
  }

  private static void closeFromAnotherThread(DataLoader loader, int stopAt, String run)
      throws InterruptedException {
    CountDownLatch taken = new CountDownLatch(1);
    List<Throwable> unexpected = new ArrayList<>();
    Thread consumer =
        new Thread(
            () -> {
              try {
                int i = 0;
                for (Batch batch : loader.epoch(0)) {
                  StreamedRows.rows(batch);
                  if (++i == stopAt) {
                    taken.countDown();
                  }
                }
              } catch (CancellationException closed) {
                // the loader was closed while next() waited
              } catch (IllegalStateException read) {
                if (!String.valueOf(read.getMessage()).contains("is no longer valid")) {
                  unexpected.add(read); // else the loader was closed while the batch was read
                }
              } catch (Throwable t) {
                unexpected.add(t);
              } finally {
                taken.countDown();
              }
            },
            "stress-consumer");
    consumer.start();
    taken.await(20, TimeUnit.SECONDS);
    loader.close();
    consumer.join(TimeUnit.SECONDS.toMillis(20));
    assertThat(consumer.isAlive()).as(run).isFalse();
    assertThat(unexpected).as(run).isEmpty();
  }
}
