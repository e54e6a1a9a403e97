package dev.stoker.loader.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SlotPoolTest {
  private static final int SLOT_BYTES = 1024;
  private static final BooleanSupplier NEVER = () -> false;
  private static final long WAIT_SECONDS = 10;

  /** Direct memory, recording every block it hands out so the test can check all were freed. */
  private static final class TrackingAllocator implements HostAllocator {
    final List<HostMemory> blocks = new ArrayList<>();

    @Override
    public String name() {
      return "tracking";
    }

    @Override
    public boolean pinned() {
      return false;
    }

    @Override
    public long limit() {
      return Long.MAX_VALUE;
    }

    @Override
    public synchronized long allocatedBytes() {
      return blocks.stream().filter(b -> !b.isClosed()).mapToLong(HostMemory::size).sum();
    }

    @Override
    public void close() {}

    @Override
    public synchronized HostMemory allocate(int bytes) {
      HostMemory block = DirectAllocator.INSTANCE.allocate(bytes);
      blocks.add(block);
      return block;
    }

    synchronized long unfreed() {
      return blocks.stream().filter(b -> !b.isClosed()).count();
    }
  }

  /** Calls acquire in a thread of its own. */
  private static final class Acquirer {
    final CountDownLatch done = new CountDownLatch(1);
    final AtomicReference<Object> result = new AtomicReference<>();
    final Thread thread;

    Acquirer(SlotPool pool, BooleanSupplier cancelled) {
      thread =
          new Thread(
              () -> {
                try {
                  result.set(pool.acquire(cancelled));
                } catch (Throwable t) {
                  result.set(t);
                } finally {
                  done.countDown();
                }
              },
              "slot-pool-test-acquirer");
      thread.setDaemon(true);
      thread.start();
    }

    boolean awaitDone() throws InterruptedException {
      return done.await(WAIT_SECONDS, TimeUnit.SECONDS);
    }
  }

  private TrackingAllocator allocator;
  private SlotPool pool;

  @BeforeEach
  void openPool() {
    allocator = new TrackingAllocator();
    pool = new SlotPool("test", allocator, SLOT_BYTES, 3);
  }

  @AfterEach
  void closePool() {
    try {
      pool.close();
    } finally {
      assertThat(allocator.unfreed()).as("blocks not freed after close").isZero();
    }
    assertThat(pool.allocated()).isZero();
  }

  /** Waits (bounded) until an acquirer is blocked in the pool; a condition, not a timing. */
  private void awaitWaiters(long count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (pool.waits() < count) {
      assertThat(System.nanoTime()).as("an acquirer started waiting").isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  @Test
  void shouldAllocateSlotsOnlyWhenTakenUpToMaxSlots() throws InterruptedException {
    assertThat(pool.allocated()).isZero();
    HostMemory first = pool.acquire(NEVER);
    assertThat(pool.allocated()).isEqualTo(1);
    assertThat(first.size()).isEqualTo(SLOT_BYTES);
    pool.release(first);
    HostMemory again = pool.acquire(NEVER);
    assertThat(again).as("an idle slot is reused").isSameAs(first);
    assertThat(pool.allocated()).isEqualTo(1);
    HostMemory second = pool.acquire(NEVER);
    HostMemory third = pool.acquire(NEVER);
    assertThat(pool.allocated()).isEqualTo(3);
    assertThat(pool.outstanding()).isEqualTo(3);
    assertThat(pool.peakOutstanding()).isEqualTo(3);
    assertThat(allocator.blocks).hasSize(3);
    assertThat(pool.waits()).isZero();
    pool.release(again);
    pool.release(second);
    pool.release(third);
    assertThat(pool.outstanding()).isZero();
    assertThat(pool.peakOutstanding()).isEqualTo(3);
    assertThat(pool.allocated()).isEqualTo(3);
  }

  @Test
  void shouldBlockWhileEverySlotIsOutAndWakeOnRelease() throws InterruptedException {
    HostMemory a = pool.acquire(NEVER);
    HostMemory b = pool.acquire(NEVER);
    HostMemory c = pool.acquire(NEVER);
    Acquirer waiting = new Acquirer(pool, NEVER);
    awaitWaiters(1);
    assertThat(waiting.done.getCount()).as("still waiting").isEqualTo(1);

    pool.release(a);

    assertThat(waiting.awaitDone()).as("woken by the release").isTrue();
    assertThat(waiting.result.get()).isSameAs(a);
    assertThat(pool.allocated()).isEqualTo(3);
    assertThat(pool.outstanding()).isEqualTo(3);
    assertThat(pool.waits()).isEqualTo(1);
    pool.release(a);
    pool.release(b);
    pool.release(c);
  }

  @Test
  void shouldReturnNullToAWaiterOnceCancelledAndWoken() throws InterruptedException {
    HostMemory a = pool.acquire(NEVER);
    HostMemory b = pool.acquire(NEVER);
    HostMemory c = pool.acquire(NEVER);
    AtomicBoolean cancelled = new AtomicBoolean();
    Acquirer waiting = new Acquirer(pool, cancelled::get);
    awaitWaiters(1);

    cancelled.set(true);
    pool.wakeWaiters();

    assertThat(waiting.awaitDone()).isTrue();
    assertThat(waiting.result.get()).isNull();
    assertThat(pool.outstanding()).isEqualTo(3);
    pool.release(a);
    pool.release(b);
    pool.release(c);
  }

  @Test
  void shouldReturnNullWhenAlreadyCancelledEvenWithSlotsFree() throws InterruptedException {
    assertThat(pool.acquire(() -> true)).isNull();
    assertThat(pool.outstanding()).isZero();
    assertThat(pool.allocated()).isZero();
  }

  @Test
  void shouldWakeAWaiterWithAnErrorWhenThePoolCloses() throws InterruptedException {
    HostMemory a = pool.acquire(NEVER);
    HostMemory b = pool.acquire(NEVER);
    HostMemory c = pool.acquire(NEVER);
    Acquirer waiting = new Acquirer(pool, NEVER);
    awaitWaiters(1);

    assertThatThrownBy(pool::close).isInstanceOf(IllegalStateException.class);

    assertThat(waiting.awaitDone()).isTrue();
    assertThat(waiting.result.get())
        .isInstanceOf(IllegalStateException.class)
        .extracting(t -> ((Throwable) t).getMessage())
        .isEqualTo("slot pool 'test' is closed");
    assertThat(a.isClosed()).isFalse();
    pool.release(a);
    pool.release(b);
    pool.release(c);
    assertThat(a.isClosed()).isTrue();
  }

  @Test
  void shouldFailToCloseWithSlotsOutNamingPoolCountAndBytes() throws InterruptedException {
    HostMemory a = pool.acquire(NEVER);
    HostMemory b = pool.acquire(NEVER);
    HostMemory idle = pool.acquire(NEVER);
    pool.release(idle);

    assertThatThrownBy(pool::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "slot pool 'test': 2 slot(s) (2048 bytes) still out on close; "
                + "they are let go of when they come back");
    assertThat(pool.isClosed()).isTrue();
    assertThat(idle.isClosed()).as("the idle slot is freed at once").isTrue();
    assertThat(a.isClosed()).as("a slot still out is not freed under its user").isFalse();

    pool.release(a);
    pool.release(b);
    assertThat(a.isClosed()).as("a slot returned after close is freed").isTrue();
    assertThat(b.isClosed()).isTrue();
    assertThat(pool.outstanding()).isZero();
    assertThat(pool.allocated()).isZero();
  }

  @Test
  void shouldHintAtTheDebugPropertyWhenClosingWithSlotsOut() throws InterruptedException {
    assumeThat(Boolean.getBoolean(SlotPool.DEBUG_PROPERTY)).as("debug off").isFalse();
    HostMemory a = pool.acquire(NEVER);
    assertThatThrownBy(pool::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "slot pool 'test': 1 slot(s) (1024 bytes) still out on close; they are let "
                + "go of when they come back; set -Dstoker.memory.debug=true to see where they "
                + "were taken");
    pool.release(a);
  }

  @Test
  void shouldCloseTwiceSafely() throws InterruptedException {
    pool.release(pool.acquire(NEVER));
    pool.close();
    pool.close();
    assertThat(pool.isClosed()).isTrue();
    assertThat(allocator.unfreed()).isZero();
    assertThatThrownBy(() -> pool.acquire(NEVER))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("slot pool 'test' is closed");
  }

  @Test
  void shouldRefuseASlotReturnedTwice() throws InterruptedException {
    HostMemory a = pool.acquire(NEVER);
    pool.release(a);
    assertThatThrownBy(() -> pool.release(a))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("slot pool 'test': a slot was returned twice");
    assertThat(pool.outstanding()).isZero();
  }

  @Test
  void shouldRefuseASlotReturnedTwiceWhileOtherSlotsAreOut() throws InterruptedException {
    HostMemory a = pool.acquire(NEVER);
    HostMemory b = pool.acquire(NEVER);
    pool.release(a);
    assertThatThrownBy(() -> pool.release(a))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("slot pool 'test': a slot was returned twice");
    assertThat(pool.outstanding()).as("b is still out").isEqualTo(1);
    HostMemory next = pool.acquire(NEVER);
    HostMemory other = pool.acquire(NEVER);
    assertThat(next).as("no slot is handed to two users").isNotSameAs(other).isNotSameAs(b);
    pool.release(b);
    pool.release(next);
    pool.release(other);
  }

  @Test
  void shouldRejectBadConstructorArguments() {
    assertThatThrownBy(() -> new SlotPool("bad", allocator, 0, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("slotBytes: 0 (expected: > 0)");
    assertThatThrownBy(() -> new SlotPool("bad", allocator, 64, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxSlots: 0 (expected: > 0)");
    assertThatThrownBy(() -> new SlotPool("bad", allocator, -1, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("slotBytes: -1 (expected: > 0)");
  }

  @Test
  void shouldDescribeItself() throws InterruptedException {
    HostMemory a = pool.acquire(NEVER);
    assertThat(pool).hasToString("SlotPool[test, tracking, 3 x 1024 bytes, 1 out, 1 allocated]");
    assertThat(pool.name()).isEqualTo("test");
    assertThat(pool.allocator()).isSameAs(allocator);
    assertThat(pool.slotBytes()).isEqualTo(SLOT_BYTES);
    assertThat(pool.maxSlots()).isEqualTo(3);
    pool.release(a);
  }

  @Test
  void shouldRunTheActionOnceWhenTheLastSlotOutComesBackAfterACloseThatExpectsThem()
      throws InterruptedException {
    HostMemory a = pool.acquire(NEVER);
    HostMemory b = pool.acquire(NEVER);
    pool.release(pool.acquire(NEVER)); // one idle slot, freed by the close
    List<String> ran = new ArrayList<>();

    pool.closeAfterReturns(() -> ran.add("all back"));
    assertThat(allocator.unfreed()).as("the two still out").isEqualTo(2);
    assertThat(ran).isEmpty();
    pool.release(a);
    assertThat(ran).isEmpty();
    pool.release(b);

    assertThat(ran).containsExactly("all back");
    assertThat(allocator.unfreed()).isZero();
    assertThat(pool.allocated()).isZero();
    pool.close(); // closed already: nothing to report
    pool.closeAfterReturns(() -> ran.add("again"));
    assertThat(ran).containsExactly("all back");
  }

  @Test
  void shouldRunTheActionAtOnceWhenNoSlotIsOutAndLogWhatItThrows() throws InterruptedException {
    pool.release(pool.acquire(NEVER));
    AtomicBoolean ran = new AtomicBoolean();
    pool.closeAfterReturns(() -> ran.set(true));
    assertThat(ran).isTrue();

    SlotPool other = new SlotPool("other", allocator, SLOT_BYTES, 1);
    HostMemory out = other.acquire(NEVER);
    other.closeAfterReturns(
        () -> {
          throw new StackOverflowError("the allocator's close recursed");
        });
    other.release(out); // the Error is logged, not thrown at the thread giving the slot back
    assertThat(allocator.unfreed()).isZero();
  }
}
