package dev.stoker.loader;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A dataset whose sample i is recognisable: field "x" holds {i, i + 0.25, i + 0.5} and "label"
 * holds i. It can sleep at random (so workers finish out of order), fail on chosen indices, hang
 * on one index, and records which threads wrote samples.
 */
final class IndexDataset implements MapDataset {
  static final Schema SCHEMA = Schema.of(Field.of("x", DType.FLOAT32, 3),
      Field.scalar("label", DType.INT64));

  private final int size;
  private volatile Set<Integer> failing = Set.of();
  private volatile int maxSleepMicros;
  private volatile int hangOn = -1;
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

  /** The labels of a batch's valid rows, checking "x" agrees with them. */
  static long[] labels(Batch batch) {
    long[] labels = new long[batch.size()];
    for (int r = 0; r < batch.size(); r++) {
      labels[r] = batch.getLong(1, r, 0);
      float x = batch.getFloat(0, r, 0);
      if (x != labels[r] || batch.getFloat(0, r, 2) != labels[r] + 0.5f) {
        throw new AssertionError("row " + r + " of " + batch + ": x=" + x + " label=" + labels[r]);
      }
    }
    return labels;
  }
}
