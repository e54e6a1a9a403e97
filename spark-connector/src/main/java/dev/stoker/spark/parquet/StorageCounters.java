package dev.stoker.spark.parquet;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What this JVM's file readers asked of storage that is not a local disk: requests, bytes, retries,
 * and the time the decoding waited for bytes not yet there. Read by the benchmarks and the reports
 * as differences between two readings.
 *
 * @param requests range requests made, each try counted
 * @param bytes bytes the requests that succeeded read
 * @param retries requests made again after a failure
 * @param waitNanos time the decoding waited for a request to finish
 */
public record StorageCounters(long requests, long bytes, long retries, long waitNanos) {
  private static final AtomicLong REQUESTS = new AtomicLong();
  private static final AtomicLong BYTES = new AtomicLong();
  private static final AtomicLong RETRIES = new AtomicLong();
  private static final AtomicLong WAIT_NANOS = new AtomicLong();

  /** The counts so far in this JVM. */
  public static StorageCounters now() {
    return new StorageCounters(REQUESTS.get(), BYTES.get(), RETRIES.get(), WAIT_NANOS.get());
  }

  /** What was counted between {@code before} and this reading. */
  public StorageCounters since(StorageCounters before) {
    return new StorageCounters(
        requests - before.requests,
        bytes - before.bytes,
        retries - before.retries,
        waitNanos - before.waitNanos);
  }

  static void requested() {
    REQUESTS.incrementAndGet();
  }

  static void read(long readBytes) {
    BYTES.addAndGet(readBytes);
  }

  static void retried() {
    RETRIES.incrementAndGet();
  }

  static void waited(long nanos) {
    WAIT_NANOS.addAndGet(nanos);
  }
}
