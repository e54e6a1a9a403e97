package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.IntUnaryOperator;

/**
 * A stream whose row r is recognisable: "x" holds {r, r + 0.25, r + 0.5}, "label" holds r and "pix"
 * five bytes {@code (7r + j) & 0xff}. Chunk sizes follow a pattern; the stream can reuse one set of
 * buffers for every chunk (its {@code next()} then waits for the chunk before to be closed, as
 * Spark's vectorized Parquet reader reuses its batch), copy with the typed puts, and fail or
 * misbehave where a test says. It records what the loader did with it (requests, opens, closes) and
 * every breach of the stream contract: a copy from a closed chunk, a close twice, two threads in
 * {@code next()}, a stream closed before its chunks.
 */
final class TestStream implements StreamedDataset {
  static final Schema SCHEMA =
      Schema.of(
          Field.of("x", DType.FLOAT32, 3),
          Field.scalar("label", DType.INT64),
          Field.of("pix", DType.UINT8, 5));
  static final int X = 0;
  static final int LABEL = 1;
  static final int PIX = 2;
  private static final long REUSE_WAIT_MILLIS = 20_000;

  /** Replaces a chunk's copy: returns true if it handled the copy itself. */
  interface Copier {
    boolean copy(int field, long streamRow, ColumnTarget target) throws Exception;
  }

  /** Runs before {@code next()} makes chunk {@code index}; may throw or block. */
  interface NextHook {
    void beforeChunk(int index) throws Exception;
  }

  private final long rowCount;
  private volatile long rows;
  private volatile IntUnaryOperator sizes = i -> 7;
  private volatile boolean reuse;
  private volatile boolean typed;
  private volatile int maxSleepMicros;
  private volatile Throwable openFailure;
  private volatile NextHook nextHook = i -> {};
  private volatile boolean openNull;
  private volatile int oddChunk = -1;
  private volatile IntSupplier oddRows;
  private volatile int badCloseChunk = -1;
  private volatile Copier copier = (f, r, t) -> false;

  final List<StreamRequest> requests = new CopyOnWriteArrayList<>();
  final List<String> violations = new CopyOnWriteArrayList<>();
  final AtomicInteger streamsOpened = new AtomicInteger();
  final AtomicInteger streamsClosed = new AtomicInteger();
  final AtomicInteger chunksMade = new AtomicInteger();
  final AtomicInteger chunksClosed = new AtomicInteger();

  /** A stream declaring {@code rowCount} (or {@link #UNKNOWN_ROWS}) that yields {@code rows}. */
  TestStream(long rowCount, long rows) {
    this.rowCount = rowCount;
    this.rows = rows;
  }

  /** A stream of exactly {@code rows} rows, declared. */
  static TestStream known(long rows) {
    return new TestStream(rows, rows);
  }

  /** A stream of {@code rows} rows whose length is not declared. */
  static TestStream unknown(long rows) {
    return new TestStream(UNKNOWN_ROWS, rows);
  }

  TestStream chunks(int size) {
    sizes = i -> size;
    return this;
  }

  TestStream chunks(IntUnaryOperator sizeOfChunk) {
    sizes = sizeOfChunk;
    return this;
  }

  /** Chunk sizes drawn from {@code choices} with a seeded random. */
  TestStream randomChunks(long seed, int... choices) {
    Random random = new Random(seed);
    int[] drawn = new int[4096];
    for (int i = 0; i < drawn.length; i++) {
      drawn[i] = choices[random.nextInt(choices.length)];
    }
    drawn[0] = Math.max(1, drawn[0]);
    sizes = i -> i < drawn.length ? drawn[i] : 64;
    return this;
  }

  TestStream reusing() {
    reuse = true;
    return this;
  }

  TestStream typed() {
    typed = true;
    return this;
  }

  /** One copy in eight sleeps up to {@code micros}, so workers finish out of order. */
  TestStream sleepingUpTo(int micros) {
    maxSleepMicros = micros;
    return this;
  }

  /** Changes the rows the next streams yield (the declared count stays). */
  TestStream yielding(long value) {
    rows = value;
    return this;
  }

  TestStream failingOpen(Throwable failure) {
    openFailure = failure;
    return this;
  }

  TestStream onNext(NextHook hook) {
    nextHook = hook;
    return this;
  }

  /** {@code next()} throws {@code failure} when asked for chunk {@code index}. */
  TestStream failingNext(int index, Throwable failure) {
    return onNext(
        i -> {
          if (i == index) {
            throw asException(failure);
          }
        });
  }

  /** {@code open()} returns null. */
  TestStream openingNull() {
    openNull = true;
    return this;
  }

  /** Chunk {@code index} says it has -3 rows. */
  TestStream negativeRowsAt(int index) {
    oddRows = () -> -3;
    oddChunk = index;
    return this;
  }

  /** {@code rows()} of chunk {@code index} throws {@code failure}. */
  TestStream failingRowsAt(int index, RuntimeException failure) {
    oddRows =
        () -> {
          throw failure;
        };
    oddChunk = index;
    return this;
  }

  /** Closing chunk {@code index} throws, once it has counted as closed. */
  TestStream failingToCloseChunk(int index) {
    badCloseChunk = index;
    return this;
  }

  TestStream copying(Copier value) {
    copier = value;
    return this;
  }

  /** Rethrows an Error; returns an Exception to throw. */
  static Exception asException(Throwable t) {
    if (t instanceof Error error) {
      throw error;
    }
    return (Exception) t;
  }

  @Override
  public Schema schema() {
    return SCHEMA;
  }

  @Override
  public long rowCount() {
    return rowCount;
  }

  @Override
  public ChunkStream open(StreamRequest request) throws Exception {
    requests.add(request);
    if (openFailure != null) {
      throw asException(openFailure);
    }
    if (openNull) {
      return null;
    }
    streamsOpened.incrementAndGet();
    return new Stream(rows);
  }

  /** Asserts no breach of the contract and that every stream and chunk made was closed once. */
  void assertAllClosed() {
    assertThat(violations).as("breaches of the stream contract").isEmpty();
    assertThat(streamsClosed.get())
        .as("streams closed of %d opened", streamsOpened.get())
        .isEqualTo(streamsOpened.get());
    assertThat(chunksClosed.get())
        .as("chunks closed of %d made", chunksMade.get())
        .isEqualTo(chunksMade.get());
  }

  /** Closes the loader, checks it left nothing behind, then checks {@link #assertAllClosed}. */
  void closeAndCheck(DataLoader loader) {
    LoaderLeaks.closeAndCheck(loader);
    assertAllClosed();
  }

  /** Waits (up to a few seconds) until every stream opened was closed. */
  void awaitStreamsClosed() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (streamsClosed.get() != streamsOpened.get() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
  }

  private void violation(String what) {
    violations.add(what + " (on " + Thread.currentThread().getName() + ")");
  }

  /** One epoch's stream. */
  private final class Stream implements ChunkStream {
    private final long total;
    private final AtomicBoolean inNext = new AtomicBoolean();
    private final List<Chunk> made = new ArrayList<>();
    private ByteBuffer[] shared;
    private long nextRow;
    private int index;
    private boolean ended;
    private volatile boolean closed;

    Stream(long total) {
      this.total = total;
    }

    @Override
    public ColumnChunk next() throws Exception {
      if (!inNext.compareAndSet(false, true)) {
        violation("two threads in next()");
      }
      try {
        if (closed) {
          violation("next() after the stream was closed");
        }
        if (ended) {
          violation("next() after the stream ended");
        }
        nextHook.beforeChunk(index);
        if (nextRow >= total) {
          ended = true;
          return null;
        }
        if (reuse && !made.isEmpty()) {
          made.get(made.size() - 1).awaitClosed();
        }
        int size = (int) Math.min(Math.max(0, sizes.applyAsInt(index)), total - nextRow);
        Chunk chunk = new Chunk(index, nextRow, size, fill(nextRow, size));
        synchronized (this) {
          made.add(chunk);
        }
        chunksMade.incrementAndGet();
        nextRow += size;
        index++;
        return chunk;
      } finally {
        inNext.set(false);
      }
    }

    private ByteBuffer[] fill(long start, int size) {
      ByteBuffer[] columns =
          reuse && shared != null && shared[LABEL].capacity() >= size * 8
              ? shared
              : new ByteBuffer[] {buffer(size * 12), buffer(size * 8), buffer(size * 5)};
      for (int i = 0; i < size; i++) {
        long r = start + i;
        columns[X]
            .putFloat(i * 12, r)
            .putFloat(i * 12 + 4, r + 0.25f)
            .putFloat(i * 12 + 8, r + 0.5f);
        columns[LABEL].putLong(i * 8, r);
        for (int j = 0; j < 5; j++) {
          columns[PIX].put(i * 5 + j, pix(r, j));
        }
      }
      shared = reuse ? columns : null;
      return columns;
    }

    @Override
    public synchronized void close() {
      if (closed) {
        violation("stream closed twice");
        return;
      }
      if (inNext.get()) {
        violation("stream closed while a thread was in next()");
      }
      closed = true;
      streamsClosed.incrementAndGet();
      for (Chunk chunk : made) {
        if (!chunk.closed.get()) {
          violation("stream closed before chunk " + chunk.index);
        }
      }
    }
  }

  private static ByteBuffer buffer(int bytes) {
    return ByteBuffer.allocate(Math.max(1, bytes)).order(ByteOrder.nativeOrder());
  }

  static byte pix(long row, int j) {
    return (byte) (row * 7 + j);
  }

  /** One chunk; copies through {@link ColumnChunk#ofBuffers} or the typed puts. */
  private final class Chunk implements ColumnChunk {
    final int index;
    final long start;
    final int size;
    final ByteBuffer[] columns;
    final ColumnChunk buffers;
    final AtomicBoolean closed = new AtomicBoolean();

    Chunk(int index, long start, int size, ByteBuffer[] columns) {
      this.index = index;
      this.start = start;
      this.size = size;
      this.columns = columns;
      this.buffers = ColumnChunk.ofBuffers(size, columns);
    }

    @Override
    public int rows() {
      return index == oddChunk ? oddRows.getAsInt() : size;
    }

    @Override
    public void copyTo(int field, int fromRow, ColumnTarget target) throws Exception {
      if (closed.get()) {
        violation("copy from chunk " + index + " after it was closed");
      }
      if (maxSleepMicros > 0 && ThreadLocalRandom.current().nextInt(8) == 0) {
        TimeUnit.MICROSECONDS.sleep(ThreadLocalRandom.current().nextInt(maxSleepMicros));
      }
      try {
        if (!copier.copy(field, start + fromRow, target)) {
          copy(field, fromRow, target);
        }
      } finally {
        if (closed.get()) {
          violation("chunk " + index + " closed during a copy from it");
        }
      }
    }

    private void copy(int field, int fromRow, ColumnTarget target) throws Exception {
      if (!typed) {
        buffers.copyTo(field, fromRow, target);
        return;
      }
      int n = target.rows();
      switch (field) {
        case X -> {
          float[] values = new float[n * 3];
          columns[X].asFloatBuffer().get(fromRow * 3, values);
          target.putFloats(values, 0, values.length);
        }
        case LABEL -> {
          for (int i = 0; i < n; i++) {
            target.putLong(columns[LABEL].getLong((fromRow + i) * 8));
          }
        }
        default -> {
          byte[] values = new byte[n * 5];
          columns[PIX].get(fromRow * 5, values);
          target.putBytes(values, 0, values.length);
        }
      }
    }

    @Override
    public void close() {
      if (!closed.compareAndSet(false, true)) {
        violation("chunk " + index + " closed twice");
        return;
      }
      chunksClosed.incrementAndGet();
      synchronized (this) {
        notifyAll();
      }
      if (index == badCloseChunk) {
        throw new IllegalStateException("chunk " + index + " failed to close");
      }
    }

    synchronized void awaitClosed() throws InterruptedException {
      long deadline = System.currentTimeMillis() + REUSE_WAIT_MILLIS;
      while (!closed.get()) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) {
          violation(
              "next() waited " + REUSE_WAIT_MILLIS + " ms for chunk " + index + " to be closed");
          throw new IllegalStateException("chunk " + index + " was never closed");
        }
        wait(left);
      }
    }
  }
}
