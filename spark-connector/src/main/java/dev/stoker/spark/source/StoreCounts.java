package dev.stoker.spark.source;

import dev.stoker.spark.parquet.StorageCounters;

/**
 * What this JVM's Parquet readers asked of storage that is not a local disk (an object store,
 * HDFS), the reads of format("stoker") among them: requests, bytes, retries, and the time the
 * decoding waited for bytes not yet there. Read as the difference between two readings ({@link
 * #since}), e.g. around one read.
 *
 * @param requests range requests made, each try counted
 * @param bytes bytes the requests that succeeded read
 * @param retries requests made again after a failure
 * @param waitNanos time the decoding waited for a request to finish
 */
public record StoreCounts(long requests, long bytes, long retries, long waitNanos) {
  /** The counts so far in this JVM. */
  public static StoreCounts now() {
    StorageCounters now = StorageCounters.now();
    return new StoreCounts(now.requests(), now.bytes(), now.retries(), now.waitNanos());
  }

  /** What was counted between {@code before} and this reading. */
  public StoreCounts since(StoreCounts before) {
    return new StoreCounts(
        requests - before.requests,
        bytes - before.bytes,
        retries - before.retries,
        waitNanos - before.waitNanos);
  }
}
