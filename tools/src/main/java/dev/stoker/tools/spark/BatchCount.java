package dev.stoker.tools.spark;

/** Rows and full batches that a read handed out, over every rank. */
record BatchCount(long rows, long batches) {
  static BatchCount sum(Iterable<long[]> perRank) {
    long rows = 0;
    long batches = 0;
    for (long[] rank : perRank) {
      rows += rank[0];
      batches += rank[1];
    }
    return new BatchCount(rows, batches);
  }
}
