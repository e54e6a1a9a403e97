package dev.stoker.loader.tokens;

import com.knuddels.jtokkit.api.Encoding;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.util.JoinedThreads;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tokenizes a chunk's texts on {@code threads} threads at once, since byte-pair encoding costs a
 * hundred times what packing does: the texts are read one after the other (a chunk may reuse the
 * buffer of a value), then encoded in as many stretches of rows as there are threads. One per
 * stream; its threads have ended when {@link #close()} returns.
 */
final class ChunkTokenizer implements AutoCloseable {
  private static final AtomicInteger STREAMS = new AtomicInteger();

  /** How long {@link #close()} waits for a stretch being encoded to notice it was cancelled. */
  private static final long CLOSE_WAIT_SECONDS = 30;

  private final Encoding encoding;
  private final int threads;

  /** The threads, made on first use; guarded by this, as a stream may close on another thread. */
  private ExecutorService pool;

  private boolean closed;

  /** The threads of {@link #pool}, joined on close. */
  private JoinedThreads threadsMade;

  ChunkTokenizer(Encoding encoding, int threads) {
    this.encoding = encoding;
    this.threads = Math.max(1, threads);
  }

  /**
   * The ids of the text in field {@code field} of every row of {@code chunk}, by row; a null text
   * is a null entry.
   */
  int[][] tokenize(ColumnChunk chunk, int field) throws Exception {
    int rows = chunk.rows();
    String[] texts = new String[rows];
    for (int r = 0; r < rows; r++) {
      ByteBuffer value = chunk.variableValue(field, r);
      if (value != null) {
        byte[] bytes = new byte[value.remaining()];
        value.duplicate().get(bytes);
        texts[r] = new String(bytes, StandardCharsets.UTF_8);
      }
    }
    int[][] ids = new int[rows][];
    int stretches = Math.min(threads, rows);
    if (stretches <= 1) {
      encode(texts, ids, 0, rows);
      return ids;
    }
    List<Future<?>> done = new ArrayList<>();
    for (int s = 0; s < stretches; s++) {
      int from = (int) ((long) rows * s / stretches);
      int to = (int) ((long) rows * (s + 1) / stretches);
      done.add(pool().submit(() -> encode(texts, ids, from, to)));
    }
    try {
      for (Future<?> future : done) {
        future.get();
      }
    } catch (ExecutionException e) {
      for (Future<?> future : done) {
        future.cancel(true);
      }
      Throwable cause = e.getCause();
      if (cause instanceof Error error) {
        throw error;
      }
      throw cause instanceof Exception ex ? ex : e;
    }
    return ids;
  }

  private void encode(String[] texts, int[][] ids, int from, int to) {
    for (int r = from; r < to && !Thread.currentThread().isInterrupted(); r++) {
      ids[r] = texts[r] == null ? null : Tokenizers.encode(encoding, texts[r]);
    }
  }

  private synchronized ExecutorService pool() {
    if (closed) {
      throw new CancellationException("the tokenizer's stream was closed");
    }
    if (pool == null) {
      threadsMade = new JoinedThreads("stoker-tokenizer-" + STREAMS.incrementAndGet() + "-");
      pool = Executors.newFixedThreadPool(threads, threadsMade);
    }
    return pool;
  }

  @Override
  public void close() {
    ExecutorService closing;
    JoinedThreads closingThreads;
    synchronized (this) {
      closingThreads = threadsMade;
      closed = true;
      closing = pool;
      pool = null;
    }
    if (closing == null) {
      return;
    }
    closing.shutdownNow();
    try {
      // a cancelled stretch stops at its next text; waiting for it keeps no thread past its stream
      closingThreads.join(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
