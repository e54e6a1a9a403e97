package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stream that never ends and never yields a row, only chunks of 0 rows: the loader gives up with
 * a clear error after a bounded run of them, or within its timeout, and leaves nothing running,
 * with or without workers.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamedEmptyChunksTest {

  /** Endless empty chunks, optionally pausing {@code micros} before each. */
  private static final class EmptyForever implements StreamedDataset {
    private final long rowCount;
    private final int micros;
    final AtomicLong pulled = new AtomicLong();
    final AtomicBoolean closed = new AtomicBoolean();

    EmptyForever(long rowCount, int micros) {
      this.rowCount = rowCount;
      this.micros = micros;
    }

    @Override
    public Schema schema() {
      return TestStream.SCHEMA;
    }

    @Override
    public long rowCount() {
      return rowCount;
    }

    @Override
    public ChunkStream open(StreamRequest request) {
      ColumnChunk empty =
          new ColumnChunk() {
            @Override
            public int rows() {
              return 0;
            }

            @Override
            public void copyTo(int field, int fromRow, ColumnTarget target) {
              throw new AssertionError("a chunk of 0 rows is never copied from");
            }
          };
      return new ChunkStream() {
        @Override
        public ColumnChunk next() throws InterruptedException {
          if (micros > 0) {
            Thread.sleep(micros / 1000, (micros % 1000) * 1000);
          }
          pulled.incrementAndGet();
          return empty;
        }

        @Override
        public void close() {
          closed.set(true);
        }
      };
    }
  }

  @ParameterizedTest(name = "numWorkers={0} rowCount={1}")
  @CsvSource({"0,100", "0,-1", "2,100", "2,-1"})
  void shouldRefuseAnEndlessRunOfEmptyChunks(int workers, long rowCount) {
    EmptyForever stream = new EmptyForever(rowCount, 0);
    DataLoader loader =
        new DataLoader(
            stream,
            LoaderOptions.builder()
                .batchSize(10)
                .numWorkers(workers)
                .name("empty-" + workers)
                .build());

    assertThatThrownBy(() -> loader.epoch(0).iterator().next())
        .isInstanceOf(BatchLoadException.class)
        .hasMessageContaining("epoch 0 batch 0 (fill)")
        .hasMessageContaining(
            "the stream gave 1048576 chunks of 0 rows in a row, after 0 rows "
                + "(expected: chunks with rows, or null at its end)");

    assertThat(stream.pulled.get()).isEqualTo(ChunkWindow.MAX_EMPTY_CHUNKS);
    LoaderLeaks.closeAndCheck(loader);
    assertThat(stream.closed).isTrue();
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldGiveUpOnEmptyChunksWithinTheTimeout(int workers) {
    EmptyForever stream = new EmptyForever(StreamedDataset.UNKNOWN_ROWS, 200);
    DataLoader loader =
        new DataLoader(
            stream,
            LoaderOptions.builder()
                .batchSize(10)
                .numWorkers(workers)
                .timeout(Duration.ofMillis(300))
                .name("slow-empty-" + workers)
                .build());

    assertThatThrownBy(() -> loader.epoch(0).iterator().next())
        .isInstanceOf(RuntimeException.class)
        .satisfies(
            e ->
                assertThat(e)
                    .isInstanceOfAny(BatchLoadException.class, LoaderTimeoutException.class))
        .hasMessageContaining("timeout=300 ms");

    LoaderLeaks.closeAndCheck(loader);
    long pulled = stream.pulled.get();
    assertThat(pulled)
        .as("bounded by the timeout, not the count")
        .isLessThan(ChunkWindow.MAX_EMPTY_CHUNKS);
    assertThat(stream.closed).isTrue();
  }
}
