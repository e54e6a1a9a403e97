package dev.stoker.spark.parquet;

/** Bytes {@code [start, end)} of a file: a column chunk, or what one request reads. */
record FileRange(long start, long end) {
  FileRange {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("a range [" + start + ", " + end + ") of a file");
    }
  }

  long length() {
    return end - start;
  }
}
