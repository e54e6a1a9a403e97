package dev.stoker.loader;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** Direct memory whose n-th allocations (from 1) throw what the test says. */
final class FailingAllocator implements HostAllocator {
  private final DirectAllocator memory = new DirectAllocator("failing", Long.MAX_VALUE);
  private final Set<Integer> failing;
  private final Supplier<? extends Error> failure;
  final AtomicInteger allocations = new AtomicInteger();

  FailingAllocator(Supplier<? extends Error> failure, Integer... failing) {
    this.failure = failure;
    this.failing = Set.of(failing);
  }

  @Override
  public String name() {
    return "failing";
  }

  @Override
  public boolean pinned() {
    return true;
  }

  @Override
  public long limit() {
    return memory.limit();
  }

  @Override
  public long allocatedBytes() {
    return memory.allocatedBytes();
  }

  /** Bytes of blocks not closed by the pool. */
  long openBytes() {
    return memory.openBytes();
  }

  @Override
  public HostMemory allocate(int bytes) {
    if (failing.contains(allocations.incrementAndGet())) {
      throw failure.get();
    }
    return memory.allocate(bytes);
  }

  @Override
  public void close() {
    memory.close();
  }
}
