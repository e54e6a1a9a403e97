package dev.stoker.spark.parquet;

import java.net.URI;
import java.util.Arrays;
import java.util.List;

/**
 * How an epoch's order lays rows out within its row groups: the shuffled row groups are taken
 * {@code groups} at a time (a stripe), each row group's rows are cut into {@code depths} equal
 * ranges (its places), and a stripe's positions deal {@code blockRows} rows of each place in turn,
 * round after round, until all are dealt. A shuffle window of {@code W} rows then holds rows of up
 * to {@code min(groups * depths, W / blockRows)} places of the input instead of one or two, which
 * is what mixes an input stored sorted (by label, date, source), at no cost in memory for the
 * window: each rank reads every place it has once, front to back, a few of them at a time, and a
 * reader that starts at a depth passes over the pages before it by their headers alone. Without a
 * shuffle, one row group after another ({@link #NONE}).
 *
 * <p>Planned from the read's own figures (its shuffle, its window's rows, its row groups' bytes and
 * paths), which a resumed read has again: a state replays the same layout.
 */
record GroupStripes(int groups, int depths, int blockRows) {
  /** Row groups one after another, each whole. */
  static final GroupStripes NONE = new GroupStripes(1, 1, Integer.MAX_VALUE);

  /** Most row groups read at a time by a rank. */
  static final int MAX_GROUPS = 8;

  /**
   * Most places a stripe deals: 16 places of an input sorted by label mix a window's batches about
   * as well as a random permutation does (within 1.2 times its label distance), where 8 give 1.6
   * times (see the shuffle benchmark).
   */
  static final int MAX_PLACES = 16;

  /** Fewest rows of a block: fewer would make plans of many tiny runs. */
  static final int MIN_BLOCK_ROWS = 512;

  /**
   * Most bytes of the row groups a rank reads at a time from remote storage: a remote reader
   * fetches its row group from the start, so a stripe's first round waits for all of its row
   * groups' first requests, and its readers fetch whole row groups ahead at once; within the
   * default read-ahead ({@code stoker.io.readAhead}), fetching the next row groups still overlaps
   * decoding the current ones. Stripes of eight remote row groups of 16 MiB read at 0.88 of the
   * rate (two thirds under load), their first batch 0.4 s later, on a link of 0.5 GB/s and 20 ms.
   */
  static final long REMOTE_GROUP_BYTES = StorageReads.DEFAULT_READ_AHEAD;

  GroupStripes {
    if (groups < 1 || depths < 1 || blockRows < 1) {
      throw new IllegalArgumentException(
          "groups "
              + groups
              + ", depths "
              + depths
              + ", blockRows "
              + blockRows
              + " (expected: all >= 1)");
    }
  }

  /** Row groups {@code groups} at a time, each whole, in blocks of {@code blockRows}. */
  GroupStripes(int groups, int blockRows) {
    this(groups, 1, blockRows);
  }

  /**
   * The layout of a read of {@code groups}: with a shuffle, {@link #MAX_GROUPS} row groups at a
   * time (fewer from remote storage, as {@link #REMOTE_GROUP_BYTES} allows), local row groups cut
   * into as many depths as make {@link #MAX_PLACES} places, in blocks that a window of {@code
   * windowRows} rows holds one of each place of, but of at least {@link #MIN_BLOCK_ROWS} rows; else
   * (or with a window too small for two blocks) {@link #NONE}. A reader from remote storage fetches
   * a row group's bytes from its start, and Spark's reader (for encodings Stoker's does not decode)
   * reads the rows it passes: there each row group is one place.
   */
  static GroupStripes of(List<RankPlanner.Group> groups, boolean shuffle, int windowRows) {
    if (!shuffle || windowRows < 2 * MIN_BLOCK_ROWS || groups.isEmpty()) {
      return NONE;
    }
    int width = Math.min(MAX_GROUPS, groups.size());
    long largest = 1;
    long[] rows = new long[groups.size()];
    boolean remote = false;
    boolean passesPages = true;
    for (int g = 0; g < rows.length; g++) {
      RankPlanner.Group group = groups.get(g);
      largest = Math.max(largest, group.bytes());
      rows[g] = group.rows();
      remote |= isRemote(group.path());
      passesPages &= group.decodable();
    }
    if (remote) {
      width = (int) Math.max(1, Math.min(width, REMOTE_GROUP_BYTES / largest));
    }
    int places = Math.max(width, Math.min(MAX_PLACES, windowRows / MIN_BLOCK_ROWS));
    int blockRows = Math.max(MIN_BLOCK_ROWS, windowRows / places);
    // a depth of a row group of the median size holds two blocks at least, else its reader would
    // barely start before it ends (a file's short last row group has short depths)
    Arrays.sort(rows);
    long depthsByRows = Math.max(1, rows[rows.length / 2] / (2L * blockRows));
    int depths =
        remote || !passesPages ? 1 : (int) Math.min(Math.max(1, places / width), depthsByRows);
    if (width * depths == 1) {
      return NONE;
    }
    return new GroupStripes(width, depths, Math.max(MIN_BLOCK_ROWS, windowRows / (width * depths)));
  }

  /**
   * Whether a stripe deals several row groups' blocks in turn: then each block is a run of its own,
   * which the reader of its row group's earlier block reads on.
   */
  boolean deals() {
    return groups * depths > 1;
  }

  private static boolean isRemote(String path) {
    String scheme;
    try {
      scheme = new URI(path).getScheme();
    } catch (java.net.URISyntaxException e) {
      scheme = null; // a local path with characters a URI does not take
    }
    return scheme != null && !scheme.equals("file");
  }

  /** Receives a piece of a row group: {@code count} rows from row {@code offset} of it. */
  interface PieceSink {
    void piece(int group, long offset, long count);
  }

  /**
   * The pieces of row groups that positions {@code [from, to)} of the order hold, in order;
   * positions past {@code rows} wrap to the start (padding). {@code starts} are the order's row
   * groups' first positions as if one after another, which stripes keep (a stripe holds the same
   * positions as its row groups would).
   */
  void pieces(
      List<RankPlanner.Group> order, long[] starts, long rows, long from, long to, PieceSink sink) {
    for (long position = from; position < to; ) {
      long at = position % rows;
      int i = Arrays.binarySearch(starts, at);
      i = i >= 0 ? i : -i - 2;
      if (!deals()) {
        long offset = at - starts[i];
        long count = Math.min(to - position, order.get(i).rows() - offset);
        sink.piece(i, offset, count);
        position += count;
        continue;
      }
      int first = i / groups * groups;
      int last = Math.min(first + groups, order.size());
      long stripeEnd = last < order.size() ? starts[last] : rows;
      long count = Math.min(to - position, stripeEnd - at);
      dealt(order, first, last, at - starts[first], count, sink);
      position += count;
    }
  }

  /**
   * The pieces of {@code count} positions from {@code skip} of the stripe of groups [first, last):
   * round after round, a block of each place (each depth of each row group) in turn.
   */
  private void dealt(
      List<RankPlanner.Group> order, int first, int last, long skip, long count, PieceSink sink) {
    long left = count;
    for (long round = 0; left > 0; round++) {
      long dealtBefore = round * blockRows;
      for (int d = 0; d < depths && left > 0; d++) {
        for (int g = first; g < last && left > 0; g++) {
          long rows = order.get(g).rows();
          long depthStart = depthStart(rows, d);
          long block = Math.min(blockRows, depthStart(rows, d + 1) - depthStart - dealtBefore);
          if (block <= 0) {
            continue;
          }
          if (skip >= block) {
            skip -= block;
            continue;
          }
          long take = Math.min(block - skip, left);
          sink.piece(g, depthStart + dealtBefore + skip, take);
          left -= take;
          skip = 0;
        }
      }
    }
  }

  /** The first row of depth {@code d} of a row group of {@code rows} rows: rows * d / depths. */
  private long depthStart(long rows, int d) {
    return rows / depths * d + rows % depths * d / depths;
  }
}
