package dev.stoker.spark.parquet;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * Opens a rank's runs, the next one ahead on an I/O thread while the current one is read, where
 * opening costs round trips (a file's status, its footer, the first requests of its pages on an
 * object store): the rank finds the next run ready rather than waiting for them. A run opened ahead
 * and never asked for is closed.
 */
final class RunOpener implements AutoCloseable {
  /** Opens a run's reader. */
  interface Open {
    RunReader open(ReadRun run) throws IOException;
  }

  private final Open open;
  private final Executor threads;
  private ReadRun aheadRun;
  private CompletableFuture<RunReader> ahead;
  private boolean closed;

  /** Opens with {@code open}, ahead on {@code threads} (null: nothing ahead). */
  RunOpener(Open open, Executor threads) {
    this.open = open;
    this.threads = threads;
  }

  /** The reader of {@code run}: the one opened ahead if it was, else opened now. */
  RunReader open(ReadRun run) throws IOException {
    CompletableFuture<RunReader> ready;
    synchronized (this) {
      ready = aheadRun == run ? ahead : null;
      if (ready == null) {
        discardAhead();
      }
      aheadRun = null;
      ahead = null;
    }
    if (ready == null) {
      return open.open(run);
    }
    try {
      return ready.get();
    } catch (InterruptedException e) {
      ready.thenAccept(RunOpener::closeQuietly);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted opening " + run.describe());
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IOException("opening " + run.describe() + " failed: " + cause);
    }
  }

  /** Starts opening {@code run}, the one to be asked for next. */
  synchronized void openAhead(ReadRun run) {
    if (threads == null || closed) {
      return;
    }
    discardAhead();
    CompletableFuture<RunReader> future = new CompletableFuture<>();
    aheadRun = run;
    ahead = future;
    try {
      threads.execute(
          () -> {
            try {
              future.complete(open.open(run));
            } catch (IOException | RuntimeException e) {
              future.completeExceptionally(e);
            } catch (Error e) {
              // named where it is asked for; an OutOfMemoryError not carried (Spark ends on one)
              future.completeExceptionally(
                  new IOException("opening " + run.describe() + " failed: " + e));
            }
          });
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
  }

  private void discardAhead() {
    if (ahead != null) {
      ahead.thenAccept(RunOpener::closeQuietly);
    }
    aheadRun = null;
    ahead = null;
  }

  private static void closeQuietly(RunReader reader) {
    try {
      reader.close();
    } catch (IOException | RuntimeException e) {
      // a reader nobody read
    }
  }

  /** Closes the run opened ahead, now or once it is open. */
  @Override
  public synchronized void close() {
    closed = true;
    discardAhead();
  }
}
