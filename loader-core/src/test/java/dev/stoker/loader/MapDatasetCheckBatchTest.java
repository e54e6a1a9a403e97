package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A map dataset's {@link MapDataset#checkBatch} runs in the thread that wrote each batch, after its
 * samples and before the batch is handed on; what it throws fails that batch, whatever onBadSample
 * says, and wins over a failure of the batch's own samples.
 */
@Timeout(60)
class MapDatasetCheckBatchTest {
  private static final Schema SCHEMA = Schema.of(Field.scalar("id", DType.INT64));

  /** Samples 0..99; the check of the batch that wrote sample {@code failAt} throws. */
  private static final class CheckedDataset implements MapDataset {
    private final int failAt;
    private final boolean sampleFails;
    private final ThreadLocal<Boolean> wroteIt = ThreadLocal.withInitial(() -> false);
    final AtomicInteger checks = new AtomicInteger();

    /** Every failure a check was given, but a batch cancelled as the loader closed. */
    final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

    CheckedDataset(int failAt, boolean sampleFails) {
      this.failAt = failAt;
      this.sampleFails = sampleFails;
    }

    @Override
    public Schema schema() {
      return SCHEMA;
    }

    @Override
    public int size() {
      return 100;
    }

    @Override
    public void write(int index, SampleWriter row) throws IOException {
      if (index == failAt) {
        wroteIt.set(true);
        if (sampleFails) {
          throw new IOException("sample " + index + " unreadable");
        }
      }
      row.putLong(0, 0, index);
    }

    @Override
    public void checkBatch(Throwable failure) throws IOException {
      checks.incrementAndGet();
      if (failure != null && !(failure instanceof CancellationException)) {
        failures.add(failure);
      }
      if (wroteIt.get()) {
        wroteIt.set(false);
        throw new IOException("the batch with sample " + failAt + " read a file that changed");
      }
    }
  }

  @ParameterizedTest(name = "numWorkers={0}, onBadSample={1}, sample fails too={2}")
  @CsvSource({
    "0, FAIL, false",
    "2, FAIL, false",
    "0, SKIP, false",
    "2, SKIP, true",
    "2, FAIL, true"
  })
  void shouldFailTheBatchWhoseCheckThrows(
      int numWorkers, OnBadSample onBadSample, boolean sampleFails) {
    CheckedDataset dataset = new CheckedDataset(37, sampleFails);
    try (DataLoader loader =
        new DataLoader(
            dataset,
            LoaderOptions.builder()
                .batchSize(10)
                .numWorkers(numWorkers)
                .onBadSample(onBadSample)
                .name("checked")
                .build())) {
      AtomicInteger delivered = new AtomicInteger();
      assertThatThrownBy(
              () -> {
                for (Batch batch : loader.epoch(0)) {
                  batch.close();
                  delivered.incrementAndGet();
                }
              })
          .isInstanceOf(BatchLoadException.class)
          .hasMessageContaining("epoch 0 batch 3")
          .cause()
          .isInstanceOf(IOException.class)
          .hasMessage("the batch with sample 37 read a file that changed");
      assertThat(delivered).hasValue(3);
      assertThat(dataset.checks.get()).isGreaterThanOrEqualTo(4);
      if (sampleFails && onBadSample == OnBadSample.FAIL) {
        assertThat(dataset.failures)
            .as("the failures the checks were given")
            .singleElement()
            .satisfies(
                failure ->
                    assertThat(failure)
                        .hasMessageContaining(
                            "sample 37 (row 7 of 10): java.io.IOException: sample 37 unreadable"));
      } else {
        assertThat(dataset.failures).as("the failures the checks were given").isEmpty();
      }
    }
  }

  /**
   * HotSpot delivers a fault of a compiled read of mapped memory late, at the thread's next call
   * into its runtime: that may be the very call of {@code checkBatch}, before the dataset runs. The
   * loader then asks the dataset about that error, so that it names the cause.
   */
  @ParameterizedTest(name = "numWorkers={0}")
  @CsvSource({"0", "2"})
  void shouldAskTheDatasetAboutAFaultDeliveredAtItsCheck(int numWorkers) {
    String fault =
        "a fault occurred in a recent unsafe memory access operation in compiled Java code";
    MapDataset dataset =
        new MapDataset() {
          private final AtomicInteger calls = new AtomicInteger();

          @Override
          public Schema schema() {
            return SCHEMA;
          }

          @Override
          public int size() {
            return 100;
          }

          @Override
          public void write(int index, SampleWriter row) {
            row.putLong(0, 0, index);
          }

          @Override
          public void checkBatch(Throwable failure) throws IOException {
            if (failure instanceof InternalError late && late.getMessage().equals(fault)) {
              throw new IOException("the mapped file changed under the batch");
            }
            if (calls.incrementAndGet() == 3) {
              throw new InternalError(fault); // as the JVM raises it at the call
            }
          }
        };
    try (DataLoader loader =
        new DataLoader(
            dataset,
            LoaderOptions.builder().batchSize(10).numWorkers(numWorkers).name("late").build())) {
      assertThatThrownBy(
              () -> {
                for (Batch batch : loader.epoch(0)) {
                  batch.close();
                }
              })
          .isInstanceOf(BatchLoadException.class)
          .cause()
          .isInstanceOf(IOException.class)
          .hasMessage("the mapped file changed under the batch");
    }
  }
}
