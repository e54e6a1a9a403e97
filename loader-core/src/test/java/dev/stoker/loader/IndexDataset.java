package dev.stoker.loader;

import dev.stoker.loader.device.HostCopyDevice;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A dataset whose sample i is recognisable: field "x" holds {i, i + 0.25, i + 0.5} and "label"
 * holds i. It can sleep at random (so workers finish out of order), fail on chosen indices, hang on
 * one index, and records which threads wrote samples.
 */
final class IndexDataset implements MapDataset {
  static final Schema SCHEMA =
      Schema.of(Field.of("x", DType.FLOAT32, 3), Field.scalar("label", DType.INT64));

  private final int size;
  private volatile Set<Integer> failing = Set.of();
  private volatile int maxSleepMicros;
  private volatile int hangOn = -1;
  private volatile int stuckOn = -1;
  private volatile CountDownLatch release;
  private volatile Map<Integer, Supplier<? extends Throwable>> throwing = Map.of();

  /** Counts down when a thread is stuck on {@code stuckOn}. */
  final CountDownLatch stuck = new CountDownLatch(1);

  final Set<String> writerThreads = ConcurrentHashMap.newKeySet();
  final AtomicInteger writes = new AtomicInteger();

  IndexDataset(int size) {
    this.size = size;
  }

  IndexDataset failingOn(Integer... indices) {
    failing = Set.of(indices);
    return this;
  }

  IndexDataset sleepingUpTo(int micros) {
    maxSleepMicros = micros;
    return this;
  }

  IndexDataset hangingOn(int index) {
    hangOn = index;
    return this;
  }

  /** Sample {@code index} blocks until {@code until} is released, ignoring interrupts. */
  IndexDataset stuckOn(int index, CountDownLatch until) {
    release = until;
    stuckOn = index;
    return this;
  }

  /** Sample {@code index} throws what {@code failure} makes (an Error or checked one too). */
  IndexDataset throwingOn(int index, Supplier<? extends Throwable> failure) {
    throwing = Map.of(index, failure);
    return this;
  }

  @Override
  public Schema schema() {
    return SCHEMA;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public void write(int index, SampleWriter row) throws Exception {
    writerThreads.add(Thread.currentThread().getName());
    writes.incrementAndGet();
    if (index == hangOn) {
      Thread.sleep(60_000);
    }
    if (index == stuckOn) {
      stuck.countDown();
      while (true) {
        try {
          release.await();
          break;
        } catch (InterruptedException ignored) {
          // dataset code that ignores interrupts
        }
      }
    }
    Supplier<? extends Throwable> failure = throwing.get(index);
    if (failure != null) {
      throw IndexDataset.<RuntimeException>sneaky(failure.get());
    }
    if (maxSleepMicros > 0) {
      long micros = ThreadLocalRandom.current().nextInt(maxSleepMicros);
      Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
    }
    if (failing.contains(index)) {
      throw new IllegalStateException("sample " + index + " is corrupt");
    }
    row.putFloat(0, 0, index);
    row.putFloat(0, 1, index + 0.25f);
    row.putFloat(0, 2, index + 0.5f);
    row.putLong(1, 0, index);
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T sneaky(Throwable t) throws T {
    throw (T) t;
  }

  /**
   * The labels of a batch's valid rows, checking "x" agrees with them; read on the host, or in the
   * device memory of a {@link HostCopyDevice}.
   */
  static long[] labels(Batch batch) {
    long[] labels = new long[batch.size()];
    ByteBuffer device =
        batch.onDevice() ? ((HostCopyDevice.Buffer) batch.deviceBuffer()).memory().bytes() : null;
    BatchLayout layout = batch.layout();
    for (int r = 0; r < batch.size(); r++) {
      float x;
      float last;
      if (device == null) {
        labels[r] = batch.getLong(1, r, 0);
        x = batch.getFloat(0, r, 0);
        last = batch.getFloat(0, r, 2);
      } else {
        labels[r] = device.getLong(layout.rowOffset(1, r));
        x = device.getFloat(layout.rowOffset(0, r));
        last = device.getFloat(layout.rowOffset(0, r) + 8);
      }
      if (x != labels[r] || last != labels[r] + 0.5f) {
        throw new AssertionError("row " + r + " of " + batch + ": x=" + x + " label=" + labels[r]);
      }
    }
    return labels;
  }
}
