package dev.stoker.spark.source;

import java.util.concurrent.atomic.LongAdder;

/** What one rank's read has done so far, counted from the loader's threads and the task's. */
final class SourceCounters {
  final LongAdder rowsRead = new LongAdder();
  final LongAdder bytesRead = new LongAdder();
  final LongAdder readNanos = new LongAdder();
  final LongAdder batches = new LongAdder();
}
