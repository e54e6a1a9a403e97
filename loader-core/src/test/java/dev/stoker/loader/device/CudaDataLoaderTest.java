package dev.stoker.loader.device;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.Batch;
import dev.stoker.loader.BatchIterator;
import dev.stoker.loader.BatchLoadException;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Stage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The real DataLoader on the CUDA device over a fake runtime: data, threads, errors, leaks. */
class CudaDataLoaderTest {

  @ParameterizedTest(name = "numWorkers={0}, pinMemory={1}, transferDepth={2}")
  @CsvSource({"0, true, 1", "2, true, 3", "3, false, 2", "0, false, 1"})
  void shouldDeliverEveryBatchToTheDeviceInOrderFromTheTransferThread(
      int numWorkers, boolean pinMemory, int transferDepth) {
    FakeCudaRuntime runtime = new FakeCudaRuntime(2).copyDelay(100);
    CudaDevice device = CudaDevice.using(runtime, 1);
    String name = "cuda-" + numWorkers + "-" + pinMemory + "-" + transferDepth;
    DataLoader loader =
        new DataLoader(
            new LabeledDataset(101),
            LoaderOptions.builder()
                .batchSize(8)
                .shuffle(true)
                .seed(3)
                .numWorkers(numWorkers)
                .pinMemory(pinMemory)
                .transferDepth(transferDepth)
                .name(name)
                .build(),
            device);
    assertThat(loader.allocator().pinned()).isEqualTo(pinMemory);
    for (int epoch = 0; epoch < 2; epoch++) {
      List<Long> onDevice = new ArrayList<>();
      List<Long> expected = new ArrayList<>();
      for (Batch batch : loader.epoch(epoch)) {
        assertThat(batch.deviceEvent().isComplete()).as("the copy has completed").isTrue();
        for (long label : LabeledDataset.labelsOnDevice(runtime, batch)) {
          onDevice.add(label);
        }
        for (int r = 0; r < batch.size(); r++) {
          expected.add(batch.sampleIndex(r));
        }
      }
      assertThat(onDevice).hasSize(101).containsExactlyElementsOf(expected).doesNotHaveDuplicates();
    }
    int slots = loader.slotsAllocated();
    closeAndCheck(loader, device, runtime);

    String transfer = name + "-transfer cuda:1";
    assertThat(runtime.log())
        .filteredOn(call -> !call.startsWith("cudaHostAlloc") && !call.startsWith("cudaFreeHost"))
        .as("the engine's calls, on the transfer thread bound to the device")
        .isNotEmpty()
        .allMatch(call -> call.endsWith(" " + transfer));
    assertThat(runtime.log())
        .filteredOn(call -> call.startsWith("cudaHostAlloc"))
        .as("slots pinned once for the loader's life, by threads bound to the device")
        .hasSize(pinMemory ? slots : 0)
        .allMatch(call -> call.endsWith(" cuda:1"));
    assertThat(runtime.log())
        .filteredOn(call -> call.startsWith("cudaMalloc"))
        .hasSize(transferDepth + 2);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldDeliverAFailedCopyAtItsBatchAndServeTheNextEpoch(int numWorkers) {
    FakeCudaRuntime runtime = new FakeCudaRuntime(1);
    CudaDevice device = CudaDevice.using(runtime, 0);
    String name = "copyfail-" + numWorkers;
    DataLoader loader =
        new DataLoader(
            new LabeledDataset(64),
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(numWorkers)
                .pinMemory(true)
                .name(name)
                .build(),
            device);
    runtime.fail("cudaMemcpyAsync", FakeCudaRuntime.ILLEGAL_ADDRESS, 2, 1);
    List<Throwable> failure = new ArrayList<>();
    assertThat(batchesUntilFailure(loader, runtime, 0, failure)).isEqualTo(2);
    assertThat(failure)
        .singleElement()
        .isInstanceOfSatisfying(
            BatchLoadException.class,
            e -> {
              assertThat(e.stage()).isEqualTo(Stage.TRANSFER);
              assertThat(e.batch()).isEqualTo(2);
              assertThat(e)
                  .hasMessage(
                      "loader '"
                          + name
                          + "' epoch 0 batch 2 (transfer): copying the "
                          + "batch to the device failed: dev.stoker.loader.device.CudaCallException: "
                          + "cudaMemcpyAsync returned 700 (cudaErrorIllegalAddress) for 128 bytes into device "
                          + "buffer 3 of 4 on cuda:0, loader '"
                          + name
                          + "'")
                  .hasCauseInstanceOf(CudaCallException.class);
            });
    assertThat(batchesUntilFailure(loader, runtime, 1, failure)).isEqualTo(16);
    closeAndCheck(loader, device, runtime);
  }

  @ParameterizedTest(name = "failing call: {0}")
  @ValueSource(strings = {"cudaEventSynchronize", "cudaEventRecord"})
  void shouldDeliverAFailedEventAtItsBatch(String call) {
    FakeCudaRuntime runtime = new FakeCudaRuntime(1);
    CudaDevice device = CudaDevice.using(runtime, 0);
    DataLoader loader =
        new DataLoader(
            new LabeledDataset(64),
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(2)
                .pinMemory(true)
                .name("eventfail")
                .build(),
            device);
    runtime.fail(call, FakeCudaRuntime.ILLEGAL_ADDRESS, 5, 1);
    List<Throwable> failure = new ArrayList<>();
    assertThat(batchesUntilFailure(loader, runtime, 0, failure)).isEqualTo(5);
    assertThat(failure)
        .singleElement()
        .isInstanceOfSatisfying(
            BatchLoadException.class,
            e ->
                assertThat(e)
                    .hasMessageContaining(
                        "(transfer): copying the batch to the device "
                            + "failed: dev.stoker.loader.device.CudaCallException: "
                            + call
                            + " returned 700 "
                            + "(cudaErrorIllegalAddress)"));
    closeAndCheck(loader, device, runtime);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldFailBatchZeroWhenTheEngineCannotOpenAndOpenItAgainNextEpoch(int numWorkers) {
    FakeCudaRuntime runtime = new FakeCudaRuntime(1);
    CudaDevice device = CudaDevice.using(runtime, 0);
    DataLoader loader =
        new DataLoader(
            new LabeledDataset(64),
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(numWorkers)
                .pinMemory(true)
                .name("nomem")
                .build(),
            device);
    runtime.fail("cudaMalloc", CudaRuntime.MEMORY_ALLOCATION, 1, 1);
    List<Throwable> failure = new ArrayList<>();
    assertThat(batchesUntilFailure(loader, runtime, 0, failure)).isZero();
    assertThat(failure)
        .singleElement()
        .isInstanceOfSatisfying(
            BatchLoadException.class,
            e -> {
              assertThat(e.stage()).isEqualTo(Stage.OPEN);
              assertThat(e)
                  .hasMessage(
                      "loader 'nomem' epoch 0 batch 0 (open): opening the transfer "
                          + "engine of device 'cuda:0' failed: dev.stoker.loader.device.CudaCallException: "
                          + "cudaMalloc returned 2 (cudaErrorMemoryAllocation) for device buffer 2 of 4 (128 "
                          + "bytes) on cuda:0, loader 'nomem': the GPU is out of memory; lower transferDepth or "
                          + "batchSize, or free GPU memory");
            });
    assertThat(runtime.deviceBytes()).as("the buffer made before was freed").isZero();
    assertThat(runtime.liveStreams()).isZero();
    assertThat(batchesUntilFailure(loader, runtime, 1, failure)).isEqualTo(16);
    closeAndCheck(loader, device, runtime);
  }

  @ParameterizedTest(name = "transferDepth={0}")
  @ValueSource(ints = {1, 2})
  void shouldKeepEachBatchIntactForAnAsynchronousStepThatPassesItsEvent(int transferDepth) {
    FakeCudaRuntime runtime = new FakeCudaRuntime(1).copyDelay(50);
    CudaDevice device = CudaDevice.using(runtime, 0);
    DataLoader loader =
        new DataLoader(
            new LabeledDataset(200),
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(2)
                .pinMemory(true)
                .transferDepth(transferDepth)
                .name("async")
                .build(),
            device);
    long[] out = new long[1];
    runtime.streamCreateNonBlocking(out);
    long step = out[0];
    long[] done = new long[transferDepth + 3];
    for (int i = 0; i < done.length; i++) {
      runtime.eventCreate(out);
      done[i] = out[0];
    }
    List<Long> seenBySteps = Collections.synchronizedList(new ArrayList<>());
    List<Long> expected = new ArrayList<>();
    int k = 0;
    for (Batch batch : loader.epoch(0)) {
      for (int r = 0; r < batch.size(); r++) {
        expected.add(batch.sampleIndex(r));
      }
      runtime.streamWaitEvent(step, batch.deviceEvent().handle());
      long labels = batch.deviceColumn("label").address();
      int rows = batch.size();
      runtime.enqueue(
          step,
          () -> { // the step reads the batch later, on its own stream
            sleepMicros(300);
            ByteBuffer read =
                ByteBuffer.wrap(runtime.read(labels, rows * 8)).order(ByteOrder.nativeOrder());
            for (int r = 0; r < rows; r++) {
              seenBySteps.add(read.getLong(r * 8));
            }
          });
      long event = done[k++ % done.length];
      runtime.eventRecord(event, step);
      batch.deviceBuffer().reuseAfter(event);
    }
    runtime.streamSynchronize(step);
    assertThat(seenBySteps).containsExactlyElementsOf(expected).hasSize(200);
    for (long event : done) {
      runtime.eventDestroy(event);
    }
    runtime.streamDestroy(step);
    closeAndCheck(loader, device, runtime);
  }

  @RepeatedTest(30)
  void shouldLeaveNothingOnTheDeviceWhateverFailsAndWhenever(RepetitionInfo repetition)
      throws InterruptedException {
    SplittableRandom random = new SplittableRandom(repetition.getCurrentRepetition() * 7919L);
    FakeCudaRuntime runtime = new FakeCudaRuntime(1).copyDelay(random.nextInt(50));
    String[] calls = {
      "cudaMemcpyAsync",
      "cudaEventRecord",
      "cudaEventSynchronize",
      "cudaMalloc",
      "cudaHostAlloc",
      "cudaStreamWaitEvent",
      "none"
    };
    String call = calls[random.nextInt(calls.length)];
    runtime.fail(call, FakeCudaRuntime.ILLEGAL_ADDRESS, random.nextInt(12), 1 + random.nextInt(2));
    CudaDevice device = CudaDevice.using(runtime, 0);
    int numWorkers = random.nextInt(4);
    LoaderOptions.Builder options =
        LoaderOptions.builder()
            .batchSize(1 + random.nextInt(6))
            .numWorkers(numWorkers)
            .pinMemory(random.nextBoolean())
            .transferDepth(1 + random.nextInt(3))
            .shuffle(true)
            .seed(random.nextLong())
            .name("stress-" + repetition.getCurrentRepetition());
    if (numWorkers > 0) {
      options.persistentWorkers(random.nextBoolean());
    }
    DataLoader loader =
        new DataLoader(new LabeledDataset(40 + random.nextInt(40)), options.build(), device);
    int stopAfter = random.nextInt(12);
    boolean closeFromElsewhere = random.nextInt(4) == 0;
    Thread closer = null;
    for (int epoch = 0; epoch < 2; epoch++) {
      int taken = 0;
      try (BatchIterator it = loader.epoch(epoch).iterator()) {
        while (it.hasNext() && taken++ < stopAfter) {
          Batch batch = it.next();
          LabeledDataset.labelsOnDevice(runtime, batch);
          if (closeFromElsewhere && closer == null) {
            closer = new Thread(loader::close);
            closer.start();
          }
        }
      } catch (RuntimeException e) {
        assertThat(e)
            .isInstanceOfAny(
                BatchLoadException.class, CancellationException.class, IllegalStateException.class);
      }
    }
    if (closer != null) {
      closer.join();
    }
    closeAndCheck(loader, device, runtime);
  }

  private static int batchesUntilFailure(
      DataLoader loader, FakeCudaRuntime runtime, int epoch, List<Throwable> failure) {
    int batches = 0;
    try (BatchIterator it = loader.epoch(epoch).iterator()) {
      while (it.hasNext()) {
        try (Batch batch = it.next()) {
          LabeledDataset.labelsOnDevice(runtime, batch);
          batches++;
        }
      }
    } catch (RuntimeException e) {
      failure.add(e);
    }
    return batches;
  }

  /** Closes the loader; nothing of the device may stay: memory, events, streams, threads. */
  static void closeAndCheck(DataLoader loader, CudaDevice device, FakeCudaRuntime runtime) {
    loader.close();
    assertThat(loader.slotsOut()).as("slots out after close").isZero();
    assertThat(loader.threadsRunning()).as("threads after close").isZero();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (device.pinnedBytes() > 0 && System.nanoTime() < deadline) {
      System.gc(); // slots that were viewed are freed once unreachable
      sleepMicros(10_000);
    }
    assertThat(device.pinnedBytes()).as("pinned bytes after close").isZero();
    assertThat(runtime.pinnedBytes()).as("page-locked memory after close").isZero();
    assertThat(device.deviceBytes()).as("device bytes after close").isZero();
    assertThat(runtime.deviceBytes()).as("device memory after close").isZero();
    assertThat(runtime.liveEvents()).as("events after close").isZero();
    assertThat(runtime.liveStreams()).as("streams after close").isZero();
  }

  private static void sleepMicros(long micros) {
    try {
      TimeUnit.MICROSECONDS.sleep(micros);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
