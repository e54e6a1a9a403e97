package dev.stoker.loader.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The transfer engine on a fake runtime: copies, ordering, pooling, release and failures. */
class CudaTransferEngineTest {
  private static final int SLOT = 256;

  private FakeCudaRuntime runtime;
  private CudaDevice device;
  private HostAllocator pinned;
  private HostMemory slot;

  @BeforeEach
  void open() {
    runtime = new FakeCudaRuntime(2);
    device = CudaDevice.using(runtime, 1);
    pinned = device.hostAllocator("engine-test", 1 << 20, true);
    slot = pinned.allocate(SLOT);
  }

  @AfterEach
  void close() {
    slot.close();
    pinned.close();
    assertThat(device.pinnedBytes()).isZero();
    assertThat(device.deviceBytes()).as("device bytes after close").isZero();
    assertThat(runtime.deviceBytes()).as("device memory still allocated").isZero();
    assertThat(runtime.liveEvents()).as("events not destroyed").isZero();
    assertThat(runtime.liveStreams()).as("streams not destroyed").isZero();
  }

  @Test
  void shouldMakeEveryBufferOnceOnTheOpeningThreadBoundToTheDevice() {
    TransferEngine engine = device.openTransfer(new TransferSpec("t", SLOT, 3));
    assertThat(device.deviceBytes()).isEqualTo(5L * SLOT);
    assertThat(runtime.liveEvents()).isEqualTo(5);
    assertThat(runtime.liveStreams()).isEqualTo(1);
    engine.close();
    String thread = Thread.currentThread().getName();
    List<String> engineCalls =
        runtime.log().stream().filter(call -> !call.startsWith("cudaHostAlloc")).toList();
    assertThat(engineCalls).first().isEqualTo("cudaStreamCreateWithFlags " + thread + " cuda:1");
    assertThat(engineCalls)
        .hasSize(1 + 5 * 2 + 5 * 2 + 1)
        .allMatch(call -> call.endsWith(" " + thread + " cuda:1"));
    engine.close();
  }

  @Test
  void shouldCopyTheSlotAndCompleteTheEventAfterTheCopy() throws InterruptedException {
    runtime.holdCopies();
    try (TransferEngine engine = device.openTransfer(new TransferSpec("t", SLOT, 1))) {
      for (int i = 0; i < SLOT; i++) {
        slot.bytes().put(i, (byte) (i * 7));
      }
      DeviceBuffer buffer = engine.copy(slot, 200);
      assertThat(buffer.deviceName()).isEqualTo("cuda:1");
      assertThat(buffer.size()).isEqualTo(SLOT);
      assertThat(buffer.event().isComplete()).as("the copy waits on its stream").isFalse();
      runtime.openCopies();
      buffer.event().awaitOnHost();
      assertThat(buffer.event().isComplete()).isTrue();
      byte[] onDevice = runtime.read(buffer.address(), 200);
      for (int i = 0; i < 200; i++) {
        assertThat(onDevice[i]).isEqualTo((byte) (i * 7));
      }
      engine.release(buffer);
    }
  }

  @Test
  void shouldReuseTheBufferFreeLongestAndWaitWhenNoneIsFree() throws Exception {
    try (TransferEngine engine = device.openTransfer(new TransferSpec("t", SLOT, 1))) {
      List<DeviceBuffer> taken = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        taken.add(engine.copy(slot, SLOT));
      }
      assertThat(taken).extracting(DeviceBuffer::address).doesNotHaveDuplicates();
      CompletableFuture<DeviceBuffer> waiting = new CompletableFuture<>();
      Thread copier =
          new Thread(
              () -> {
                try {
                  waiting.complete(engine.copy(slot, SLOT));
                } catch (Throwable t) {
                  waiting.completeExceptionally(t);
                }
              });
      copier.start();
      Thread.sleep(50);
      assertThat(waiting).as("every buffer is out").isNotDone();
      engine.release(taken.get(1));
      engine.release(taken.get(0));
      assertThat(waiting.get(5, TimeUnit.SECONDS)).isSameAs(taken.get(1));
      assertThat(engine.copy(slot, SLOT)).isSameAs(taken.get(0));
      copier.join();
    }
  }

  @Test
  void shouldRefuseABufferReleasedTwiceOrNotItsOwn() throws InterruptedException {
    try (TransferEngine engine = device.openTransfer(new TransferSpec("t", SLOT, 1));
        TransferEngine other = device.openTransfer(new TransferSpec("u", SLOT, 1))) {
      DeviceBuffer buffer = engine.copy(slot, SLOT);
      engine.release(buffer);
      assertThatThrownBy(() -> engine.release(buffer))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "device buffer 1 of 3 (cuda:1, loader 't') was released twice (or never "
                  + "handed out)");
      assertThatThrownBy(() -> other.release(buffer))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "device buffer 1 of 3 (cuda:1, loader 't') does not belong to the "
                  + "transfer engine of cuda:1, loader 'u'");
    }
  }

  @Test
  void shouldRefuseACopyLongerThanTheBuffers() {
    try (TransferEngine engine = device.openTransfer(new TransferSpec("t", 128, 1))) {
      assertThatThrownBy(() -> engine.copy(slot, 129))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "bytes: 129 (expected: 0 < bytes <= 128, the device buffers' size, and <= "
                  + "256, the host slot's) on cuda:1, loader 't'");
    }
  }

  @Test
  void shouldNotOverwriteABufferBeforeTheConsumersEventHasCompleted() throws Exception {
    try (TransferEngine engine = device.openTransfer(new TransferSpec("t", SLOT, 1))) {
      long[] out = new long[1];
      runtime.streamCreateNonBlocking(out);
      long consumerStream = out[0];
      runtime.eventCreate(out);
      long stepDone = out[0];
      CountDownLatch stepMayEnd = new CountDownLatch(1);

      slot.bytes().put(0, (byte) 1);
      DeviceBuffer first = engine.copy(slot, SLOT);
      first.event().awaitOnHost();
      runtime.enqueue(consumerStream, () -> awaitQuietly(stepMayEnd)); // the step reads it
      runtime.eventRecord(stepDone, consumerStream);
      first.reuseAfter(stepDone);
      engine.release(first);
      DeviceBuffer second = engine.copy(slot, SLOT);
      DeviceBuffer third = engine.copy(slot, SLOT);
      slot.bytes().put(0, (byte) 2);
      DeviceBuffer again = engine.copy(slot, SLOT);
      assertThat(again).isSameAs(first);
      Thread.sleep(30);
      assertThat(again.event().isComplete()).as("waits for the step").isFalse();
      assertThat(runtime.read(first.address(), 1)[0]).isEqualTo((byte) 1);

      stepMayEnd.countDown();
      again.event().awaitOnHost();
      assertThat(runtime.read(first.address(), 1)[0]).isEqualTo((byte) 2);
      for (DeviceBuffer b : List.of(second, third, again)) {
        engine.release(b);
      }
      runtime.eventDestroy(stepDone);
      runtime.streamDestroy(consumerStream);
    }
  }

  @Test
  void shouldFreeWhatWasMadeWhenABufferCannotBeAllocated() {
    runtime.fail("cudaMalloc", CudaRuntime.MEMORY_ALLOCATION, 2, 1);
    assertThatThrownBy(() -> device.openTransfer(new TransferSpec("t", SLOT, 2)))
        .isInstanceOf(CudaCallException.class)
        .hasMessage(
            "cudaMalloc returned 2 (cudaErrorMemoryAllocation) for device buffer 3 of 4 "
                + "(256 bytes) on cuda:1, loader 't': the GPU is out of memory; lower transferDepth "
                + "or batchSize, or free GPU memory");
  }

  @Test
  void shouldFreeTheBufferWhoseEventCannotBeMade() {
    runtime.fail("cudaEventCreateWithFlags", FakeCudaRuntime.INVALID_VALUE, 1, 1);
    assertThatThrownBy(() -> device.openTransfer(new TransferSpec("t", SLOT, 2)))
        .isInstanceOf(CudaCallException.class)
        .hasMessage(
            "cudaEventCreateWithFlags returned 1 (cudaErrorInvalidValue) for the event "
                + "of device buffer 2 of 4 (256 bytes) on cuda:1, loader 't'");
  }

  @Test
  void shouldGiveTheBufferBackWhenACopyFails() throws InterruptedException {
    try (TransferEngine engine = device.openTransfer(new TransferSpec("t", SLOT, 1))) {
      runtime.fail("cudaMemcpyAsync", FakeCudaRuntime.ILLEGAL_ADDRESS, 0, 1);
      assertThatThrownBy(() -> engine.copy(slot, SLOT))
          .isInstanceOf(CudaCallException.class)
          .hasMessage(
              "cudaMemcpyAsync returned 700 (cudaErrorIllegalAddress) for 256 bytes into "
                  + "device buffer 1 of 3 on cuda:1, loader 't'");
      runtime.fail("cudaEventRecord", FakeCudaRuntime.INVALID_HANDLE, 0, 1);
      assertThatThrownBy(() -> engine.copy(slot, SLOT))
          .isInstanceOf(CudaCallException.class)
          .hasMessageStartingWith(
              "cudaEventRecord returned 400 "
                  + "(cudaErrorInvalidResourceHandle) for the event of device buffer 2 of 3");
      List<DeviceBuffer> all = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        all.add(engine.copy(slot, SLOT));
      }
      assertThat(all).as("every buffer came back").hasSize(3);
      all.forEach(engine::release);
    }
  }

  @Test
  void shouldReportAFailingEventWaitWithItsBuffer() throws InterruptedException {
    try (TransferEngine engine = device.openTransfer(new TransferSpec("t", SLOT, 1))) {
      DeviceBuffer buffer = engine.copy(slot, SLOT);
      runtime.fail("cudaEventSynchronize", FakeCudaRuntime.ILLEGAL_ADDRESS, 0, 1);
      assertThatThrownBy(() -> buffer.event().awaitOnHost())
          .isInstanceOf(CudaCallException.class)
          .hasMessage(
              "cudaEventSynchronize returned 700 (cudaErrorIllegalAddress) for the copy "
                  + "into device buffer 1 of 3 (256 bytes) on cuda:1, loader 't'");
      runtime.fail("cudaEventQuery", FakeCudaRuntime.ILLEGAL_ADDRESS, 0, 1);
      assertThatThrownBy(() -> buffer.event().isComplete())
          .isInstanceOf(CudaCallException.class)
          .hasMessageStartingWith("cudaEventQuery returned 700");
      engine.release(buffer);
    }
  }

  @Test
  void shouldFreeEverythingOnCloseEvenWhenOneStepFailsAndRefuseTheEventsAfterwards()
      throws InterruptedException {
    FakeCudaRuntime own = new FakeCudaRuntime(1);
    CudaDevice gpu = CudaDevice.using(own, 0);
    TransferEngine engine = gpu.openTransfer(new TransferSpec("t", SLOT, 2));
    DeviceBuffer held = engine.copy(slot, SLOT);
    own.fail("cudaFree", FakeCudaRuntime.INVALID_VALUE, 1, 1);
    assertThatThrownBy(engine::close)
        .isInstanceOf(CudaCallException.class)
        .hasMessage(
            "cudaFree returned 1 (cudaErrorInvalidValue) for device buffer 2 of 4 on "
                + "cuda:0, loader 't'");
    assertThat(own.deviceBytes()).as("the other buffers were freed").isEqualTo(SLOT);
    assertThat(gpu.deviceBytes()).as("the one that failed stays counted").isEqualTo(SLOT);
    assertThat(own.liveEvents()).isZero();
    assertThat(own.liveStreams()).isZero();
    assertThatThrownBy(() -> held.event().awaitOnHost())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the copy into device buffer 1 of 4 (256 bytes) on cuda:0, loader 't': the "
                + "event was destroyed when the loader closed");
    assertThatThrownBy(() -> held.event().isComplete()).isInstanceOf(IllegalStateException.class);
    engine.release(held);
    engine.close();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
