package dev.stoker.spark.parquet;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Arrays for page bytes that the readers of one rank's stream hand on to each other. A dealt read
 * opens a reader for each place of each row group (see {@link GroupStripes}), and each reader's
 * window onto the file and its page buffer take megabytes: allocated anew, they cost zeroing and
 * the collector's copying, a fifth of a read's time in the shuffled benchmarks. A reader takes its
 * arrays here and gives them back when it closes; at most {@code most} are kept, the largest.
 */
final class PageArrays {
  private final int most;
  private final ArrayDeque<byte[]> free = new ArrayDeque<>();

  /**
   * @param most arrays kept between readers, at most
   */
  PageArrays(int most) {
    if (most < 0) {
      throw new IllegalArgumentException("most " + most + " (expected: >= 0)");
    }
    this.most = most;
  }

  /** A kept array of at least {@code size} bytes, no longer kept; null if none is. */
  synchronized byte[] take(int size) {
    for (Iterator<byte[]> kept = free.iterator(); kept.hasNext(); ) {
      byte[] array = kept.next();
      if (array.length >= size) {
        kept.remove();
        return array;
      }
    }
    return null;
  }

  /**
   * Keeps {@code array}, which its reader no longer reads or writes; when {@code most} are kept,
   * the smallest of them and it is dropped.
   */
  synchronized void give(byte[] array) {
    if (array.length == 0 || most == 0) {
      return;
    }
    if (free.size() < most) {
      free.push(array);
      return;
    }
    byte[] smallest = array;
    for (byte[] kept : free) {
      if (kept.length < smallest.length) {
        smallest = kept;
      }
    }
    if (smallest != array) {
      free.remove(smallest);
      free.push(array);
    }
  }

  /** The arrays kept now. */
  synchronized int kept() {
    return free.size();
  }
}
