package dev.stoker.spark.parquet;

import java.util.concurrent.atomic.LongAdder;

/** What one rank's read has done so far, counted from the loader's threads and the task's. */
public final class SourceCounters {
  public final LongAdder rowsRead = new LongAdder();
  public final LongAdder bytesRead = new LongAdder();
  public final LongAdder readNanos = new LongAdder();
  public final LongAdder batches = new LongAdder();

  /** Time the decoding waited for bytes from storage that is not a local disk. */
  public final LongAdder storageWaitNanos = new LongAdder();
}
