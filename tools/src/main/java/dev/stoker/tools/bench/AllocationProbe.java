package dev.stoker.tools.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heap allocation and garbage collections over a window: bytes allocated by every live thread
 * (HotSpot's {@code com.sun.management.ThreadMXBean}) and collections from the {@link
 * GarbageCollectorMXBean}s. Where the JVM lacks either, the figure is -1 (unknown) and a note is
 * logged once. Threads that end inside the window take their bytes with them; the probe's own
 * bookkeeping on the calling thread is measured once and subtracted.
 */
public final class AllocationProbe {
  private static final Logger LOG = LoggerFactory.getLogger(AllocationProbe.class);
  private static volatile boolean warned;

  /** What happened in a window; -1 for what the JVM cannot tell. */
  public record Usage(long allocatedBytes, long gcCollections, long gcMillis) {
    /** Allocated bytes per {@code units} (e.g. batches), or NaN if unknown. */
    public double allocatedPer(long units) {
      return allocatedBytes < 0 || units <= 0 ? Double.NaN : (double) allocatedBytes / units;
    }
  }

  /** The state at the start of a window. */
  public static final class Snapshot {
    private final long[] threadIds;
    private final long[] allocated;
    private final long gcCollections;
    private final long gcMillis;

    private Snapshot(long[] threadIds, long[] allocated, long gcCollections, long gcMillis) {
      this.threadIds = threadIds;
      this.allocated = allocated;
      this.gcCollections = gcCollections;
      this.gcMillis = gcMillis;
    }
  }

  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final ThreadAllocation allocation = findAllocation(threads);
  private final long overhead;

  public AllocationProbe() {
    if (allocation == null && !warned) {
      warned = true;
      LOG.info("this JVM does not report per-thread allocation; allocated bytes show as unknown");
    }
    this.overhead = allocation == null ? 0 : measureOverhead();
  }

  /** Whether {@link Usage#allocatedBytes()} will be known. */
  public boolean allocationSupported() {
    return allocation != null;
  }

  /**
   * Bytes the calling thread has allocated so far, or -1 if unknown; for taking one step of a
   * window (e.g. starting an epoch) out of it.
   */
  public long currentThreadBytes() {
    return allocation == null ? -1 : allocation.currentThread();
  }

  /** Starts a window. */
  public Snapshot start() {
    long[] gc = gc();
    if (allocation == null) {
      return new Snapshot(new long[0], new long[0], gc[0], gc[1]);
    }
    long[] ids = threads.getAllThreadIds();
    Arrays.sort(ids);
    return new Snapshot(ids, allocation.bytes(ids), gc[0], gc[1]);
  }

  /** What happened since {@code start}. */
  public Usage since(Snapshot start) {
    long bytes = -1;
    if (allocation != null) {
      long[] ids = threads.getAllThreadIds();
      long[] now = allocation.bytes(ids);
      bytes = Math.max(0, allocatedSince(start, ids, now) - overhead);
    }
    long[] gc = gc();
    return new Usage(
        bytes,
        gc[0] < 0 || start.gcCollections < 0 ? -1 : gc[0] - start.gcCollections,
        gc[1] < 0 || start.gcMillis < 0 ? -1 : gc[1] - start.gcMillis);
  }

  private static long allocatedSince(Snapshot start, long[] ids, long[] now) {
    long total = 0;
    for (int i = 0; i < ids.length; i++) {
      if (now[i] < 0) {
        continue;
      }
      int at = Arrays.binarySearch(start.threadIds, ids[i]);
      long before = at >= 0 && start.allocated[at] >= 0 ? start.allocated[at] : 0;
      total += now[i] - before;
    }
    return total;
  }

  /** The least the calling thread allocates between {@link #start} and {@link #since}. */
  private long measureOverhead() {
    long self = Thread.currentThread().getId();
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      Snapshot start = start();
      long[] ids = threads.getAllThreadIds();
      long[] now = allocation.bytes(ids);
      int before = Arrays.binarySearch(start.threadIds, self);
      for (int t = 0; t < ids.length; t++) {
        if (ids[t] == self && before >= 0) {
          least = Math.min(least, now[t] - start.allocated[before]);
        }
      }
    }
    return least == Long.MAX_VALUE ? 0 : Math.max(0, least);
  }

  private static ThreadAllocation findAllocation(ThreadMXBean threads) {
    try {
      return ThreadAllocation.find(threads);
    } catch (LinkageError e) {
      return null; // a runtime without the jdk.management module
    }
  }

  /** Total collections and collection milliseconds over all collectors; -1 where unknown. */
  private static long[] gc() {
    long count = -1;
    long millis = -1;
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      long c = bean.getCollectionCount();
      long t = bean.getCollectionTime();
      if (c >= 0) {
        count = Math.max(count, 0) + c;
      }
      if (t >= 0) {
        millis = Math.max(millis, 0) + t;
      }
    }
    return new long[] {count, millis};
  }

  /** HotSpot's per-thread allocation counters, kept apart so a JVM without them still loads us. */
  private static final class ThreadAllocation {
    private final com.sun.management.ThreadMXBean bean;

    private ThreadAllocation(com.sun.management.ThreadMXBean bean) {
      this.bean = bean;
    }

    static ThreadAllocation find(ThreadMXBean threads) {
      try {
        if (!(threads instanceof com.sun.management.ThreadMXBean bean)
            || !bean.isThreadAllocatedMemorySupported()) {
          return null;
        }
        if (!bean.isThreadAllocatedMemoryEnabled()) {
          bean.setThreadAllocatedMemoryEnabled(true);
        }
        return new ThreadAllocation(bean);
      } catch (LinkageError | UnsupportedOperationException | SecurityException e) {
        return null; // e.g. a runtime without the jdk.management module
      }
    }

    long[] bytes(long[] ids) {
      return bean.getThreadAllocatedBytes(ids);
    }

    long currentThread() {
      return bean.getCurrentThreadAllocatedBytes();
    }
  }
}
