package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file read by coalesced requests ahead of the reader, on Hadoop's raw local file system with
 * failures and delays made in its {@code open}: the bytes as written, the memory within its bound,
 * failures retried or named, a close from another thread.
 */
class RemoteFileBytesTest {
  private static final ExecutorService THREADS = Executors.newFixedThreadPool(8);

  @TempDir java.nio.file.Path folder;

  /** Hadoop's raw local file system, whose every open may first fail or wait. */
  static final class FaultyFileSystem extends RawLocalFileSystem {
    final AtomicInteger opens = new AtomicInteger();
    volatile IntFunction<Throwable> failure = n -> null;
    volatile long delayMillis;

    FaultyFileSystem() throws IOException {
      initialize(URI.create("file:///"), new Configuration());
    }

    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
      int n = opens.incrementAndGet();
      Throwable fail = failure.apply(n);
      if (fail instanceof IOException io) {
        throw io;
      }
      if (fail instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (fail instanceof Error error) {
        throw error;
      }
      if (delayMillis > 0) {
        try {
          Thread.sleep(delayMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return super.open(f, bufferSize);
    }
  }

  @AfterAll
  static void stopThreads() {
    THREADS.shutdownNow();
  }

  private byte[] written;

  private FileStatus write(FaultyFileSystem fs, int length) throws IOException {
    written = new byte[length];
    new Random(length).nextBytes(written);
    java.nio.file.Path file = folder.resolve("data.bin");
    Files.write(file, written);
    return fs.getFileStatus(new Path(file.toUri()));
  }

  private RemoteFileBytes open(
      FaultyFileSystem fs, FileStatus status, List<List<FileRange>> groups, StorageReads settings) {
    return new RemoteFileBytes(
        new RangeSource(fs, status),
        RangePlan.of(groups, settings.coalesceGapBytes(), settings.requestBytes()),
        settings,
        THREADS,
        null);
  }

  @Test
  void shouldReadEveryChunkAsWrittenWhileHoldingNoMoreThanItsReadAhead() throws IOException {
    Random random = new Random(3);
    FaultyFileSystem fs = new FaultyFileSystem();
    for (int trial = 0; trial < 40; trial++) {
      FileStatus status = write(fs, 200_000 + trial);
      // row groups of three to five column chunks, with gaps, read column by column in windows
      List<List<FileRange>> groups = new ArrayList<>();
      long at = 4;
      while (at < 150_000) {
        List<FileRange> chunks = new ArrayList<>();
        for (int c = 0; c < 3 + random.nextInt(3); c++) {
          long length = 1 + random.nextInt(9000);
          chunks.add(new FileRange(at, at + length));
          at += length + random.nextInt(3) * random.nextInt(500);
        }
        groups.add(chunks);
      }
      int requestBytes = 500 + random.nextInt(4000);
      long readAhead = random.nextInt(3) * 10_000L;
      StorageReads settings = new StorageReads(random.nextInt(800), requestBytes, readAhead, 0, 1);
      fs.delayMillis = trial % 8 == 0 ? 2 : 0;
      try (RemoteFileBytes bytes = open(fs, status, groups, settings)) {
        for (List<FileRange> group : groups) {
          long[] next = new long[group.size()];
          for (int c = 0; c < next.length; c++) {
            next[c] = group.get(c).start();
          }
          boolean left = true;
          while (left) {
            left = false;
            for (int c = 0; c < next.length; c++) {
              long end = group.get(c).end();
              if (next[c] < end) {
                int n = (int) Math.min(end - next[c], 1 + random.nextInt(requestBytes));
                byte[] window = new byte[n + 2];
                bytes.readFully(next[c], window, 2, n);
                assertThat(Arrays.copyOfRange(window, 2, n + 2))
                    .as("bytes [%d, %d), trial %d", next[c], next[c] + n, trial)
                    .isEqualTo(Arrays.copyOfRange(written, (int) next[c], (int) next[c] + n));
                next[c] += n;
                left = true;
                // the read-ahead and one request over it, plus the two requests a column's window
                // (no longer than a request, as the page reader's) may span, kept until a read
                // starts past them
                assertThat(bytes.heldBytes())
                    .isLessThanOrEqualTo(readAhead + (2L * next.length + 1) * requestBytes);
              }
            }
          }
        }
        long lastGroup = groups.get(groups.size() - 1).stream().mapToLong(FileRange::length).sum();
        assertThat(bytes.heldBytes())
            .as("all but the last group's dropped once read, trial %d", trial)
            .isLessThanOrEqualTo(lastGroup + settings.coalesceGapBytes() * 5);
        // bytes no chunk holds are read too
        byte[] tail = new byte[10];
        bytes.readFully(written.length - 10, tail, 0, 10);
        assertThat(tail)
            .isEqualTo(Arrays.copyOfRange(written, written.length - 10, written.length));
      }
    }
  }

  @Test
  void shouldCountTheTimeTheReaderWaitedForTheStore() throws IOException {
    FaultyFileSystem fs = new FaultyFileSystem();
    FileStatus status = write(fs, 10_000);
    fs.delayMillis = 30;
    LongAdder waited = new LongAdder();
    StorageReads settings = new StorageReads(0, 1 << 20, 0, 0, 1);
    try (RemoteFileBytes bytes =
        new RemoteFileBytes(
            new RangeSource(fs, status),
            RangePlan.of(List.of(List.of(new FileRange(0, 5000))), 0, 1 << 20),
            settings,
            THREADS,
            waited)) {
      byte[] some = new byte[5000];
      bytes.readFully(0, some, 0, some.length);
      // past the plan: read at once, waited for too
      bytes.readFully(5000, some, 0, some.length);
    }
    assertThat(waited.sum()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
  }

  @Test
  void shouldRetryAFailedRequestAndNameTheFileOnceTheTriesAreSpent() throws IOException {
    FaultyFileSystem fs = new FaultyFileSystem();
    FileStatus status = write(fs, 10_000);
    List<List<FileRange>> groups = List.of(List.of(new FileRange(0, 10_000)));
    fs.failure = n -> n <= 2 ? new IOException("503 SlowDown") : null;
    StorageCounters before = StorageCounters.now();
    try (RemoteFileBytes bytes = open(fs, status, groups, new StorageReads(0, 1 << 20, 0, 3, 1))) {
      byte[] all = new byte[10_000];
      bytes.readFully(0, all, 0, all.length);
      assertThat(all).isEqualTo(written);
    }
    assertThat(StorageCounters.now().since(before).retries()).isGreaterThanOrEqualTo(2);

    fs.opens.set(0);
    fs.failure = n -> new IOException("Connection reset");
    try (RemoteFileBytes bytes = open(fs, status, groups, new StorageReads(0, 1 << 20, 0, 2, 1))) {
      assertThatThrownBy(() -> bytes.readFully(0, new byte[100], 0, 100))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("of '" + status.getPath())
          .hasMessageContaining("failed 3 times")
          .hasMessageContaining("Connection reset")
          .hasMessageContaining("raise stoker.io.retries");
    }
    assertThat(fs.opens.get()).isEqualTo(3);
  }

  @Test
  void shouldNotRetryAFileThatIsGoneOrShorterThanListed() throws IOException {
    FaultyFileSystem fs = new FaultyFileSystem();
    FileStatus status = write(fs, 10_000);
    List<List<FileRange>> groups = List.of(List.of(new FileRange(0, 10_000)));
    Files.write(folder.resolve("data.bin"), Arrays.copyOf(written, 6000));
    fs.opens.set(0);
    try (RemoteFileBytes bytes = open(fs, status, groups, new StorageReads(0, 1 << 20, 0, 5, 1))) {
      assertThatThrownBy(() -> bytes.readFully(0, new byte[10_000], 0, 10_000))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("ended before byte 10000 of the 10000 it was listed with")
          .hasMessageContaining("changed while it was read");
    }
    assertThat(fs.opens.get()).as("no retry").isEqualTo(1);
    Files.delete(folder.resolve("data.bin"));
    fs.opens.set(0);
    try (RemoteFileBytes bytes = open(fs, status, groups, new StorageReads(0, 1 << 20, 0, 5, 1))) {
      assertThatThrownBy(() -> bytes.readFully(0, new byte[10], 0, 10))
          .isInstanceOf(FileNotFoundException.class);
    }
    assertThat(fs.opens.get()).isEqualTo(1);
  }

  @Test
  void shouldTurnAnErrorOfTheStoreIntoAnIoErrorWithoutItsMemoryError() throws IOException {
    FaultyFileSystem fs = new FaultyFileSystem();
    FileStatus status = write(fs, 10_000);
    List<List<FileRange>> groups =
        List.of(List.of(new FileRange(0, 5000), new FileRange(5000, 10_000)));
    fs.failure = n -> n == 1 ? new OutOfMemoryError("Java heap space") : new StackOverflowError();
    try (RemoteFileBytes bytes = open(fs, status, groups, new StorageReads(0, 5000, 0, 3, 1))) {
      assertThatThrownBy(() -> bytes.readFully(0, new byte[10], 0, 10))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("OutOfMemoryError")
          .hasNoCause();
      assertThatThrownBy(() -> bytes.readFully(5000, new byte[10], 0, 10))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("StackOverflowError");
    }
    RemoteFileBytes fresh = open(fs, status, groups, new StorageReads(0, 5000, 0, 3, 1));
    assertThatThrownBy(() -> fresh.readFully(-1, new byte[1], 0, 2))
        .isInstanceOf(java.io.EOFException.class)
        .hasMessageContaining("bytes [-1, 1)");
    fresh.close();
  }

  @Test
  void shouldEndAReadWaitingOnASlowStoreWhenClosedFromAnotherThread() throws Exception {
    FaultyFileSystem fs = new FaultyFileSystem();
    FileStatus status = write(fs, 10_000);
    List<List<FileRange>> groups = List.of(List.of(new FileRange(0, 10_000)));
    CountDownLatch opening = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    fs.failure =
        n -> {
          opening.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return null;
        };
    RemoteFileBytes bytes = open(fs, status, groups, new StorageReads(0, 1 << 20, 0, 3, 1));
    ExecutorService reader = Executors.newSingleThreadExecutor();
    try {
      Future<?> read =
          reader.submit(
              () -> {
                bytes.readFully(0, new byte[100], 0, 100);
                return null;
              });
      assertThat(opening.await(30, TimeUnit.SECONDS)).isTrue();
      Thread closer = new Thread(bytes::close);
      closer.start();
      bytes.close();
      closer.join();
      assertThatThrownBy(() -> read.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(IOException.class)
          .hasMessageContaining("was closed");
      assertThat(bytes.heldBytes()).isZero();
      assertThatThrownBy(() -> bytes.readFully(0, new byte[1], 0, 1))
          .hasMessageContaining("read after its reader was closed");
    } finally {
      release.countDown();
      reader.shutdownNow();
    }
  }
}
