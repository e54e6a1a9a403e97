package dev.stoker.spark.parquet;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;

/**
 * How a rank reads a file that is not on a local disk (an object store, HDFS): its column chunks'
 * byte ranges coalesced into requests, several in flight ahead of the decoding, each retried. Set
 * in Hadoop's configuration, as a read's option with a dot ({@code .option("stoker.io.readAhead",
 * "128m")}) or as {@code spark.hadoop.stoker.io.*}; sizes take Hadoop's suffixes ({@code k}, {@code
 * m}, {@code g}).
 *
 * @param coalesceGapBytes ranges this close are read in one request, the bytes between them too
 * @param requestBytes the most bytes one request asks for; longer chunks are read in several
 * @param readAheadBytes the most bytes a file reader holds fetched or in flight beyond what it
 *     decodes now
 * @param retries how many times a failed request is tried again (throttling, a reset, a timeout)
 * @param retryMillis the wait before the first retry, doubled for each next one
 */
record StorageReads(
    long coalesceGapBytes, int requestBytes, long readAheadBytes, int retries, long retryMillis) {
  static final String COALESCE_GAP = "stoker.io.coalesceGap";
  static final String REQUEST_BYTES = "stoker.io.requestBytes";
  static final String READ_AHEAD = "stoker.io.readAhead";
  static final String RETRIES = "stoker.io.retries";
  static final String RETRY_MILLIS = "stoker.io.retryMillis";
  static final String THREADS = "stoker.io.threads";

  static final long DEFAULT_COALESCE_GAP = 1 << 20;
  static final int DEFAULT_REQUEST_BYTES = 8 << 20;
  static final long DEFAULT_READ_AHEAD = 32L << 20;
  static final int DEFAULT_RETRIES = 4;
  static final long DEFAULT_RETRY_MILLIS = 200;
  static final int DEFAULT_THREADS = 32;

  private static final Object POOL_LOCK = new Object();
  private static ThreadPoolExecutor pool;

  /** The settings of {@code conf}, each checked. */
  static StorageReads of(Configuration conf) {
    long gap = bytes(conf, COALESCE_GAP, DEFAULT_COALESCE_GAP, 0, Long.MAX_VALUE);
    long request = bytes(conf, REQUEST_BYTES, DEFAULT_REQUEST_BYTES, 1, 1L << 30);
    long ahead = bytes(conf, READ_AHEAD, DEFAULT_READ_AHEAD, 0, Long.MAX_VALUE);
    int retries = (int) whole(conf, RETRIES, DEFAULT_RETRIES, 0, 100);
    long wait = whole(conf, RETRY_MILLIS, DEFAULT_RETRY_MILLIS, 0, 60_000);
    return new StorageReads(gap, (int) request, ahead, retries, wait);
  }

  /**
   * The threads every file reader of this JVM issues its requests on, as many as {@code
   * stoker.io.threads} of the first configuration that asked; they end when idle a minute.
   */
  static ExecutorService threads(Configuration conf) {
    synchronized (POOL_LOCK) {
      if (pool == null) {
        int threads = (int) whole(conf, THREADS, DEFAULT_THREADS, 1, 1024);
        AtomicInteger count = new AtomicInteger();
        pool =
            new ThreadPoolExecutor(
                threads,
                threads,
                60,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                task -> {
                  Thread t = new Thread(task, "stoker-io-" + count.incrementAndGet());
                  t.setDaemon(true);
                  return t;
                });
        pool.allowCoreThreadTimeOut(true);
      }
      return pool;
    }
  }

  private static long bytes(Configuration conf, String key, long fallback, long min, long max) {
    String text = conf.getTrimmed(key);
    if (text == null || text.isEmpty()) {
      return fallback;
    }
    long value;
    try {
      value = conf.getLongBytes(key, fallback);
    } catch (NumberFormatException e) {
      value = -1;
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          key
              + ": '"
              + text
              + "' (expected: bytes in ["
              + min
              + ", "
              + max
              + "], as 1048576 or 1m; the default is "
              + fallback
              + ")");
    }
    return value;
  }

  private static long whole(Configuration conf, String key, long fallback, long min, long max) {
    String text = conf.getTrimmed(key);
    if (text == null || text.isEmpty()) {
      return fallback;
    }
    try {
      long value = Long.parseLong(text);
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IllegalArgumentException(
        key
            + ": '"
            + text
            + "' (expected: a whole number in ["
            + min
            + ", "
            + max
            + "]; the default is "
            + fallback
            + ")");
  }
}
