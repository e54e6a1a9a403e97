package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A streamed loader closed from another thread at a random moment while its consumer iterates (a
 * task being killed), many times: close never reports a slot as leaked that a loader thread still
 * gives back, every slot comes back, and the consumer ends cleanly. CI runs {@value
 * #DEFAULT_ROUNDS} rounds; {@code -Dstoker.closeRace.rounds=20000} runs the long hunt.
 */
@Timeout(value = 600, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamedCloseRaceTest {
  private static final int DEFAULT_ROUNDS = 300;
  private static final int ROUNDS = Integer.getInteger("stoker.closeRace.rounds", DEFAULT_ROUNDS);

  @Test
  void shouldNeverReportAFalseLeakWhenClosedFromAnotherThreadAtARandomMoment() throws Exception {
    Random random = new Random(Long.getLong("stoker.closeRace.seed", 30));
    for (int round = 0; round < ROUNDS; round++) {
      int workers = random.nextInt(4);
      LoaderOptions.Builder options =
          LoaderOptions.builder()
              .batchSize(1 + random.nextInt(12))
              .numWorkers(workers)
              .name("close-race-" + round);
      if (workers > 0) {
        options.prefetchFactor(1 + random.nextInt(3)).persistentWorkers(random.nextBoolean());
      }
      TestStream stream = TestStream.known(200).chunks(1 + random.nextInt(16));
      if (random.nextBoolean()) {
        stream = stream.reusing();
      }
      if (random.nextBoolean()) {
        stream = stream.sleepingUpTo(random.nextInt(300));
      }
      DataLoader loader = new DataLoader(stream, options.build());
      AtomicReference<Throwable> ended = new AtomicReference<>();
      Thread consumer =
          new Thread(
              () -> {
                try {
                  for (int epoch = 0; epoch < 20; epoch++) {
                    for (Batch batch : loader.epoch(epoch)) {
                      StreamedRows.rows(batch);
                    }
                  }
                } catch (Throwable t) {
                  ended.set(t);
                }
              },
              "race-consumer-" + round);
      consumer.start();
      long pause = random.nextInt(3000);
      long until = System.nanoTime() + pause * 1000;
      while (System.nanoTime() < until) {
        Thread.onSpinWait();
      }

      String where = "round " + round + " (" + loader + ")";
      try {
        loader.close(); // the task kill, from another thread
      } catch (RuntimeException e) {
        throw new AssertionError(where + ": close threw", e);
      }
      consumer.join(20_000);
      assertThat(consumer.isAlive()).as(where).isFalse();
      Throwable end = ended.get();
      if (end != null
          && !(end instanceof CancellationException)
          && !(end instanceof IllegalStateException && end.getMessage().contains("closed"))) {
        throw new AssertionError(where + ": the consumer ended with " + end, end);
      }
      assertThat(loader.slotsOut()).as(where + ": slots out after close").isZero();
      stream.awaitStreamsClosed();
      stream.closeAndCheck(loader);
    }
  }
}
