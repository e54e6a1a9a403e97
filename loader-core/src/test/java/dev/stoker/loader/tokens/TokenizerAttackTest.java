package dev.stoker.loader.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.knuddels.jtokkit.api.Encoding;
import dev.stoker.loader.Batch;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tokenizer attacked: an {@link Error} thrown in one of its threads, and a loader tokenizing on
 * several threads closed from two threads at once in the middle of an epoch. No hang, the failure
 * reaches the consumer as it was, and the tokenizer's threads end.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TokenizerAttackTest {
  private static final String POISON = "poison";

  /** GPT-2's encoding, throwing {@code failure} on a text that holds {@link #POISON}. */
  private static Encoding failingOn(Throwable failure) {
    Encoding real = Tokenizers.encoding("r50k_base");
    return (Encoding)
        Proxy.newProxyInstance(
            Encoding.class.getClassLoader(),
            new Class<?>[] {Encoding.class},
            (proxy, method, args) -> {
              if (method.getName().equals("encodeOrdinary")
                  && args[0] instanceof String text
                  && text.contains(POISON)) {
                throw failure;
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static ColumnChunk texts(List<String> texts) throws Exception {
    return new DocumentStream(texts, DType.UINT8, texts.size()).open(null).next();
  }

  private static boolean tokenizerThreadsAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().startsWith("stoker-tokenizer-"));
  }

  private static void awaitTokenizerThreadsEnded() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (tokenizerThreadsAlive() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(tokenizerThreadsAlive()).as("the tokenizer's threads end").isFalse();
  }

  private static List<String> sentences(int count) {
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      texts.add("Sentence number " + i + " of a document that is tokenized in a pool.");
    }
    return texts;
  }

  @Test
  void shouldHandAnErrorOfATokenizerThreadToTheCallerAsItWasAndEndItsThreads() throws Exception {
    OutOfMemoryError failure = new OutOfMemoryError("thrown by the test's encoding");
    List<String> texts = sentences(40);
    texts.set(33, "a " + POISON + " text");
    ChunkTokenizer tokenizer = new ChunkTokenizer(failingOn(failure), 3);
    try {
      assertThatThrownBy(() -> tokenizer.tokenize(texts(texts), 1)).isSameAs(failure);
      // still usable after a failed chunk
      int[][] ids = tokenizer.tokenize(texts(sentences(12)), 1);
      assertThat(ids.length).isEqualTo(12);
      for (int[] row : ids) {
        assertThat(row).isNotEmpty();
      }
    } finally {
      tokenizer.close();
    }
    awaitTokenizerThreadsEnded();
  }

  @Test
  void shouldCloseFromTwoThreadsAtOnceWhileTokenizingWithoutAHangOrALeak() throws Exception {
    for (int round = 0; round < 5; round++) {
      TokenRows rows =
          TokenRows.of(
                  new DocumentStream(sentences(3000), DType.UINT8, 128),
                  "tokens",
                  TokenLayout.packed(64).withTokenizer("r50k_base"))
              .tokenizerThreads(3);
      DataLoader loader =
          DataLoader.builder(rows)
              .options(LoaderOptions.builder().batchSize(4).numWorkers(2).build())
              .build();
      CountDownLatch reading = new CountDownLatch(3);
      AtomicReference<Throwable> consumerEnded = new AtomicReference<>();
      Thread consumer =
          new Thread(
              () -> {
                try {
                  for (Batch batch : loader.epoch(0)) {
                    batch.size();
                    reading.countDown();
                  }
                } catch (Throwable e) {
                  consumerEnded.set(e);
                }
              });
      consumer.start();
      assertThat(reading.await(30, TimeUnit.SECONDS)).isTrue();
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> closers = new ArrayList<>();
      List<Throwable> closeFailures = new java.util.concurrent.CopyOnWriteArrayList<>();
      for (int c = 0; c < 2; c++) {
        Thread closer =
            new Thread(
                () -> {
                  try {
                    go.await();
                    loader.close();
                  } catch (Throwable e) {
                    closeFailures.add(e);
                  }
                });
        closer.start();
        closers.add(closer);
      }
      go.countDown();
      for (Thread closer : closers) {
        closer.join(30_000);
        assertThat(closer.isAlive()).as("a close returns").isFalse();
      }
      consumer.join(30_000);
      assertThat(consumer.isAlive()).as("the consumer ends").isFalse();
      assertThat(closeFailures).isEmpty();
      if (consumerEnded.get() != null) {
        assertThat(consumerEnded.get()).hasMessageContaining("closed");
      }
      awaitTokenizerThreadsEnded();
    }
  }
}
