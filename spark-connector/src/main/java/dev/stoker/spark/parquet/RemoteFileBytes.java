package dev.stoker.spark.parquet;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

/**
 * A file on storage where a read costs a round trip (an object store, HDFS): the column chunks a
 * reader will decode, fetched ahead by the requests of a {@link RangePlan} on shared I/O threads,
 * up to {@link StorageReads#readAheadBytes()} beyond what is decoded now, so that the network and
 * the decoding overlap. A request's bytes are dropped once a read of every chunk it holds starts
 * past it (the reader copies what it reads), or once the reader is in a later row group. A read of
 * bytes no request holds, or of a request not yet made, is made at once, whatever the budget: the
 * reader never waits on bytes it did not ask for.
 *
 * <p>A request that fails is tried again after a wait that doubles, {@link StorageReads#retries()}
 * times; a file that is gone, shorter than listed or changed since it was listed fails at once. A
 * file reader is used by one thread; {@link #close()} may come from any.
 */
final class RemoteFileBytes implements FileBytes {
  private final RangeSource source;
  private final StorageReads settings;
  private final Executor threads;
  private final LongAdder waited;
  private final RangePlan plan;
  private final Fetch[] fetches;
  private final Fetch[] byStart;
  private final long[] starts;
  private final long[] consumed;
  private final Fetch[][] fetchesOfChunk;

  /** The chunks by where they start (a file's chunks do not overlap), and those starts. */
  private final int[] chunksByStart;

  private final long[] chunkStarts;

  /** The requests by row group, and how many of the first are past the reader's lowest group. */
  private final Fetch[] byGroup;

  private int groupsPassed;
  private int nextToIssue;
  private long held;
  private boolean closed;

  /** One request of the plan: its bytes once fetched, until released. */
  private static final class Fetch {
    final RangePlan.Request request;
    final long start;
    final long end;
    CompletableFuture<byte[]> data;
    boolean released;

    Fetch(RangePlan.Request request) {
      this.request = request;
      this.start = request.range().start();
      this.end = request.range().end();
    }

    int size() {
      return (int) (end - start);
    }
  }

  /**
   * The bytes of {@code source} that {@code plan} reads, fetched on {@code threads}; the time the
   * reader waits for them is added to {@code waited} (may be null) and {@link StorageCounters}.
   */
  RemoteFileBytes(
      RangeSource source,
      RangePlan plan,
      StorageReads settings,
      Executor threads,
      LongAdder waited) {
    this.source = source;
    this.waited = waited;
    this.settings = settings;
    this.threads = threads;
    this.plan = plan;
    List<RangePlan.Request> requests = plan.requests();
    this.fetches = new Fetch[requests.size()];
    for (int i = 0; i < fetches.length; i++) {
      fetches[i] = new Fetch(requests.get(i));
    }
    this.byStart = fetches.clone();
    Arrays.sort(byStart, Comparator.comparingLong((Fetch f) -> f.start));
    this.starts = new long[byStart.length];
    for (int i = 0; i < starts.length; i++) {
      starts[i] = byStart[i].start;
    }
    this.consumed = new long[plan.chunkCount()];
    this.fetchesOfChunk = new Fetch[plan.chunkCount()][];
    int[] counts = new int[plan.chunkCount()];
    for (Fetch f : fetches) {
      for (int c : f.request.chunks()) {
        counts[c]++;
      }
    }
    for (int c = 0; c < counts.length; c++) {
      fetchesOfChunk[c] = new Fetch[counts[c]];
      consumed[c] = plan.chunk(c).start();
      counts[c] = 0;
    }
    for (Fetch f : fetches) {
      for (int c : f.request.chunks()) {
        fetchesOfChunk[c][counts[c]++] = f;
      }
    }
    Integer[] order = new Integer[plan.chunkCount()];
    for (int c = 0; c < order.length; c++) {
      order[c] = c;
    }
    Arrays.sort(order, Comparator.comparingLong((Integer c) -> plan.chunk(c).start()));
    this.chunksByStart = new int[order.length];
    this.chunkStarts = new long[order.length];
    for (int i = 0; i < order.length; i++) {
      chunksByStart[i] = order[i];
      chunkStarts[i] = plan.chunk(order[i]).start();
    }
    this.byGroup = fetches.clone();
    Arrays.sort(byGroup, Comparator.comparingInt((Fetch f) -> f.request.group()));
    synchronized (this) {
      pump();
    }
  }

  @Override
  public int alignment() {
    return 1;
  }

  @Override
  public long length() {
    return source.length();
  }

  @Override
  public void readFully(long position, byte[] dst, int offset, int count) throws IOException {
    if (position < 0 || count < 0 || position + count > length()) {
      throw new EOFException(
          "bytes ["
              + position
              + ", "
              + (position + count)
              + ") of '"
              + source.path()
              + "', which is "
              + length()
              + " bytes long");
    }
    long at = position;
    int done = 0;
    while (done < count) {
      Fetch fetch;
      CompletableFuture<byte[]> data;
      long directEnd;
      synchronized (this) {
        ensureOpen();
        fetch = holding(at);
        data = fetch == null ? null : fetch.data;
        directEnd = fetch == null ? nextStart(at) : -1;
      }
      int n;
      if (fetch == null) {
        n = (int) Math.min(count - done, directEnd - at);
        readDirect(at, dst, offset + done, n);
      } else {
        byte[] bytes = await(fetch, data);
        n = (int) Math.min(count - done, fetch.end - at);
        System.arraycopy(bytes, (int) (at - fetch.start), dst, offset + done, n);
      }
      done += n;
      at += n;
    }
    synchronized (this) {
      if (!closed) {
        readPast(position, position + count);
      }
    }
  }

  /** The request whose bytes hold {@code position}, made now if it was not yet; else null. */
  private Fetch holding(long position) {
    int i = Arrays.binarySearch(starts, position);
    if (i < 0) {
      i = -i - 2;
    }
    if (i < 0 || position >= byStart[i].end) {
      return null;
    }
    Fetch fetch = byStart[i];
    if (fetch.data == null) {
      // asked for before its turn, or again after it was dropped: made now, whatever the budget
      fetch.released = false;
      issue(fetch);
    }
    return fetch;
  }

  /** Where the next request after {@code position} starts, or the file's end. */
  private long nextStart(long position) {
    int i = Arrays.binarySearch(starts, position);
    i = i < 0 ? -i - 1 : i + 1;
    return i < starts.length ? starts[i] : length();
  }

  private void readDirect(long position, byte[] dst, int offset, int count) throws IOException {
    long began = System.nanoTime();
    try {
      readWithRetries(position, dst, offset, count);
    } finally {
      waited(System.nanoTime() - began);
    }
  }

  /**
   * Marks the chunks that {@code [from, to)} falls in as done with the bytes before {@code from} (a
   * reader reads a chunk forward; it may read again a page that straddled its last window) and
   * drops the requests every chunk of which is done with.
   */
  private void readPast(long from, long to) {
    int lowestGroup = Integer.MAX_VALUE;
    // the chunks that start before `to`, from the last back while they end after `from`
    int i = Arrays.binarySearch(chunkStarts, to);
    i = i < 0 ? -i - 2 : i - 1;
    for (; i >= 0; i--) {
      int c = chunksByStart[i];
      FileRange chunk = plan.chunk(c);
      if (chunk.end() <= from) {
        break;
      }
      consumed[c] = Math.max(consumed[c], from);
      lowestGroup = Math.min(lowestGroup, plan.group(c));
      for (Fetch f : fetchesOfChunk[c]) {
        if (!f.released && readPast(f)) {
          release(f);
        }
      }
    }
    while (groupsPassed < byGroup.length && byGroup[groupsPassed].request.group() < lowestGroup) {
      Fetch f = byGroup[groupsPassed++];
      if (!f.released) {
        release(f);
      }
    }
    pump();
  }

  private boolean readPast(Fetch fetch) {
    for (int c : fetch.request.chunks()) {
      if (consumed[c] < Math.min(fetch.end, plan.chunk(c).end())) {
        return false;
      }
    }
    return true;
  }

  private void release(Fetch fetch) {
    fetch.released = true;
    if (fetch.data != null) {
      held -= fetch.size();
      fetch.data.cancel(false);
      fetch.data = null;
    }
  }

  /** Makes the requests next in turn while what is held stays within the read-ahead. */
  private void pump() {
    while (nextToIssue < fetches.length) {
      Fetch next = fetches[nextToIssue];
      if (next.data == null && !next.released) {
        if (held > 0 && held + next.size() > settings.readAheadBytes()) {
          return;
        }
        issue(next);
      }
      nextToIssue++;
    }
  }

  private void issue(Fetch fetch) {
    held += fetch.size();
    CompletableFuture<byte[]> data = new CompletableFuture<>();
    fetch.data = data;
    try {
      threads.execute(() -> fetch(fetch, data));
    } catch (RuntimeException e) {
      data.completeExceptionally(e);
    }
  }

  /** On an I/O thread: the bytes of {@code fetch}, or its failure, into {@code data}. */
  private void fetch(Fetch fetch, CompletableFuture<byte[]> data) {
    if (data.isDone()) {
      return; // dropped before its turn came
    }
    try {
      byte[] bytes;
      try {
        bytes = new byte[fetch.size()];
      } catch (OutOfMemoryError e) {
        throw new IOException(
            "no memory for a read of "
                + fetch.size()
                + " bytes of '"
                + source.path()
                + "' (lower "
                + StorageReads.READ_AHEAD
                + " or "
                + StorageReads.REQUEST_BYTES
                + ", or give the executors more memory)");
      }
      readWithRetries(fetch.start, bytes, 0, bytes.length);
      data.complete(bytes);
    } catch (IOException e) {
      data.completeExceptionally(e);
    } catch (RuntimeException | Error e) {
      data.completeExceptionally(
          new IOException("reading bytes " + span(fetch.start, fetch.end) + " failed: " + e));
    }
  }

  private void readWithRetries(long position, byte[] dst, int offset, int count)
      throws IOException {
    long wait = settings.retryMillis();
    for (int attempt = 0; ; attempt++) {
      StorageCounters.requested();
      try {
        source.read(position, dst, offset, count);
        StorageCounters.read(count);
        return;
      } catch (EOFException e) {
        throw new EOFException(
            "'"
                + source.path()
                + "' ended before byte "
                + (position + count)
                + " of the "
                + length()
                + " it was listed with: it changed while it was read (a read reads its files "
                + "as listed; read again, or write new files rather than replace them)");
      } catch (IOException e) {
        if (RangeSource.changed(e)) {
          throw new IOException(
              "'"
                  + source.path()
                  + "' changed since it was listed ("
                  + e.getMessage()
                  + "): a read reads its files as they were when it was planned; read again, or "
                  + "write new objects rather than replace them",
              e);
        }
        if (!RangeSource.retryable(e)) {
          throw e;
        }
        if (attempt >= settings.retries()) {
          throw new IOException(
              "reading bytes "
                  + span(position, position + count)
                  + " failed "
                  + (attempt + 1)
                  + " times, the last with: "
                  + e
                  + " (the store throttles or cannot be reached: raise "
                  + StorageReads.RETRIES
                  + " or lower "
                  + StorageReads.THREADS
                  + ")",
              e);
        }
      }
      StorageCounters.retried();
      synchronized (this) {
        if (closed) {
          throw new InterruptedIOException("'" + source.path() + "' was closed");
        }
      }
      try {
        Thread.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(
            "interrupted between tries of " + span(position, position + count));
      }
      wait = Math.min(wait * 2, 30_000);
    }
  }

  private byte[] await(Fetch fetch, CompletableFuture<byte[]> data) throws IOException {
    long began = System.nanoTime();
    try {
      return data.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for " + span(fetch.start, fetch.end));
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException("reading " + span(fetch.start, fetch.end) + " failed: " + cause);
    } catch (CancellationException e) {
      throw new InterruptedIOException("'" + source.path() + "' was closed");
    } finally {
      waited(System.nanoTime() - began);
    }
  }

  private void waited(long nanos) {
    StorageCounters.waited(nanos);
    if (waited != null) {
      waited.add(nanos);
    }
  }

  private String span(long from, long to) {
    return "[" + from + ", " + to + ") of '" + source.path() + "'";
  }

  private void ensureOpen() throws IOException {
    if (closed) {
      throw new IOException("'" + source.path() + "' was read after its reader was closed");
    }
  }

  /** How many bytes are fetched or in flight and not yet dropped: for the tests. */
  synchronized long heldBytes() {
    return held;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Fetch f : fetches) {
      release(f);
    }
  }
}
