package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.stoker.loader.device.HostCopyDevice;
import dev.stoker.loader.memory.HostMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Streamed batches on a device: copied in order, every buffer back, failures at their batch. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamedTransferTest {

  private static DataLoader loader(
      StreamedDataset stream, HostCopyDevice device, int workers, boolean dropLast) {
    LoaderOptions.Builder b =
        LoaderOptions.builder()
            .batchSize(10)
            .numWorkers(workers)
            .dropLast(dropLast)
            .transferDepth(2);
    return DataLoader.builder(stream)
        .options((workers > 0 ? b.prefetchFactor(2) : b).build())
        .device(device)
        .build();
  }

  private static void closeAndCheck(DataLoader loader, TestStream stream, HostCopyDevice device) {
    stream.closeAndCheck(loader);
    assertThat(device.buffersOut()).isZero();
    assertThat(device.allEnginesClosed()).isTrue();
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1} reusing={2}")
  @CsvSource({"0,true,false", "0,false,true", "2,true,true", "2,false,false", "3,true,false"})
  void shouldDeliverStreamedBatchesToTheDeviceInOrder(
      int workers, boolean dropLast, boolean reuse) {
    TestStream stream = TestStream.known(1003).chunks(7);
    if (reuse) {
      stream.reusing();
    }
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader = loader(stream, device, workers, dropLast);

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    int batches = dropLast ? 100 : 101;
    assertThat(epoch.labels())
        .containsExactlyElementsOf(StreamedRows.range(dropLast ? 1000 : 1003));
    assertThat(epoch.sizes()).hasSize(batches);
    assertThat(device.copies()).isEqualTo(batches);
    assertThat(loader.metrics().last().transferBatches()).isEqualTo(batches);
    closeAndCheck(loader, stream, device);
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1}")
  @CsvSource({"0,false", "0,true", "2,false", "2,true"})
  void shouldDeliverAStreamOfUnknownLengthToTheDevice(int workers, boolean dropLast) {
    TestStream stream = TestStream.unknown(95).chunks(6);
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader = loader(stream, device, workers, dropLast);

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(dropLast ? 90 : 95));
    closeAndCheck(loader, stream, device);
  }

  @ParameterizedTest(name = "stop after {0} batches")
  @ValueSource(ints = {0, 1, 5})
  void shouldReturnEveryBufferAndCloseTheStreamOnAnEarlyClose(int taken) {
    TestStream stream = TestStream.known(400).chunks(9).sleepingUpTo(100);
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader = loader(stream, device, 3, true);

    try (BatchIterator it = loader.epoch(0).iterator()) {
      for (int i = 0; i < taken; i++) {
        StreamedRows.rows(it.next());
      }
    }

    assertThat(loader.slotsOut()).isZero();
    assertThat(device.buffersOut()).isZero();
    stream.awaitStreamsClosed();
    closeAndCheck(loader, stream, device);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldDeliverAFailedCopyFromTheStreamAtItsBatchThroughTheTransfer(int workers) {
    TestStream stream =
        TestStream.known(100)
            .chunks(7)
            .copying(
                (field, row, target) -> {
                  if (row <= 37 && 37 < row + target.rows()) {
                    throw new IllegalStateException("null in row 37");
                  }
                  return false;
                });
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader = loader(stream, device, workers, true);
    List<Integer> seen = new ArrayList<>();

    BatchLoadException failure =
        catchThrowableOfType(
            BatchLoadException.class,
            () -> {
              for (Batch batch : loader.epoch(0)) {
                StreamedRows.rows(batch);
                seen.add(batch.index());
              }
            });

    assertThat(seen).containsExactly(0, 1, 2);
    assertThat(failure.stage()).isEqualTo(Stage.FILL);
    assertThat(failure.batch()).isEqualTo(3);
    assertThat(failure)
        .hasMessageContaining("copying field 'x' of stream rows 35..39")
        .hasRootCauseMessage("null in row 37");
    assertThat(device.buffersOut()).isZero();
    stream.awaitStreamsClosed();
    closeAndCheck(loader, stream, device);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldDeliverAFailedDeviceCopyAtItsBatchAndCloseTheStream(int workers) {
    AtomicInteger copies = new AtomicInteger();
    HostCopyDevice device =
        new HostCopyDevice() {
          @Override
          protected void copyBytes(HostMemory source, HostMemory target, int bytes) {
            if (copies.getAndIncrement() == 4) {
              throw new IllegalStateException("device lost");
            }
            super.copyBytes(source, target, bytes);
          }
        };
    TestStream stream = TestStream.known(100).chunks(7);
    DataLoader loader = loader(stream, device, workers, true);
    List<Integer> seen = new ArrayList<>();

    BatchLoadException failure =
        catchThrowableOfType(
            BatchLoadException.class,
            () -> {
              for (Batch batch : loader.epoch(0)) {
                seen.add(batch.index());
              }
            });

    assertThat(seen).containsExactly(0, 1, 2, 3);
    assertThat(failure.stage()).isEqualTo(Stage.TRANSFER);
    assertThat(failure.batch()).isEqualTo(4);
    assertThat(failure).hasRootCauseMessage("device lost");
    stream.awaitStreamsClosed();
    closeAndCheck(loader, stream, device);
  }
}
