package dev.stoker.spark.parquet;

import dev.stoker.loader.sampler.EpochSplit;
import dev.stoker.loader.sampler.Permutations;
import dev.stoker.loader.state.Segment;
import dev.stoker.spark.parquet.ParquetFile.RowGroup;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts the row groups of a read into one exact row range per rank, from the footers alone. The row
 * groups of every file are put in one order (file by file, or shuffled by {@code (seed, epoch)}),
 * and rank {@code r} takes positions {@code [r * perRank, (r + 1) * perRank)} of it. With {@code
 * dropLast}, {@code perRank} is the largest multiple of {@code batchSize} that every rank can have,
 * and the tail is dropped; without it, ranks get {@code ceil(rows / worldSize)} rows each, the last
 * ranks padded with the first rows of the order. An epoch resumed from a state is planned by {@link
 * StreamSplit} from the segments the epoch ran in: each rank's rows are then parts of the stream
 * the ranks before left, starting at the row group and row where they are.
 */
public final class RankPlanner {
  /**
   * A row group of a file, with the compressed bytes of the columns read, whether Stoker's decoder
   * reads them all, the ordinal of its first row in the input (every file's rows in listing order;
   * -1 if not known), and, for a table's file with deleted rows, the rows its snapshot keeps (null:
   * every row).
   */
  public record Group(
      String path, RowGroup rowGroup, long bytes, boolean decodable, long inputRow, KeptRows kept)
      implements Serializable {
    /** A group every row of which is read. */
    public Group(String path, RowGroup rowGroup, long bytes, boolean decodable, long inputRow) {
      this(path, rowGroup, bytes, decodable, inputRow, null);
    }

    /** A group whose first row's ordinal in the input is not known. */
    public Group(String path, RowGroup rowGroup, long bytes, boolean decodable) {
      this(path, rowGroup, bytes, decodable, -1);
    }

    /** This group without its columns' figures, to send to the ranks. */
    public Group placeOnly() {
      return new Group(path, rowGroup.placeOnly(), bytes, decodable, inputRow, kept);
    }

    /** The rows read of it: all, or those its file's {@code kept} keeps. */
    public long rows() {
      long first = rowGroup.firstRow();
      return kept == null ? rowGroup.rows() : kept.count(first, first + rowGroup.rows());
    }
  }

  private RankPlanner() {}

  /** {@link #plan} with row groups one after another, each whole ({@link GroupStripes#NONE}). */
  public static ReadPlan plan(
      List<Group> fileOrder,
      int worldSize,
      int batchSize,
      boolean dropLast,
      boolean shuffle,
      long seed,
      int epoch,
      String input) {
    return plan(fileOrder, worldSize, batchSize, dropLast, shuffle, seed, epoch, input, 0);
  }

  /**
   * The plan of epoch {@code epoch}, its row groups laid out for shuffle windows of {@code
   * windowRows} rows as {@link GroupStripes#of} says.
   */
  public static ReadPlan plan(
      List<Group> fileOrder,
      int worldSize,
      int batchSize,
      boolean dropLast,
      boolean shuffle,
      long seed,
      int epoch,
      String input,
      int windowRows) {
    List<Group> groups = new ArrayList<>();
    long rows = 0;
    for (Group group : fileOrder) {
      if (group.rows() > 0) {
        groups.add(group);
        rows += group.rows();
      }
    }
    long step = (long) batchSize * worldSize;
    if (step > rows) {
      throw new IllegalArgumentException(
          String.format(
              "batchSize=%d x worldSize=%d = %d rows per "
                  + "step, but %s hold(s) %d row(s) (expected: at most %d, so that every rank gets a "
                  + "full batch; lower batchSize or worldSize)",
              batchSize, worldSize, step, input, rows, rows));
    }
    long perRank = EpochSplit.rowsPerRank(rows, worldSize, batchSize, dropLast);
    long batches = batches(perRank, batchSize, dropLast);
    List<Group> order = ordered(groups, shuffle, seed, epoch);
    long[] starts = starts(order);
    GroupStripes stripes = GroupStripes.of(groups, shuffle, windowRows);
    List<List<ReadRun>> ranks = new ArrayList<>();
    for (int rank = 0; rank < worldSize; rank++) {
      ranks.add(runs(order, starts, rows, rank * perRank, (rank + 1) * perRank, stripes));
    }
    long total = perRank * worldSize;
    return new ReadPlan(
        rows,
        groups.size(),
        perRank,
        (int) batches,
        dropLast ? rows - total : 0,
        dropLast ? 0 : total - rows,
        List.copyOf(ranks));
  }

  /**
   * The plan of epoch {@code epoch} resumed after {@code segments} (the last one the ranks that
   * resume, with nothing consumed yet): each rank starts at the row group and row where its rows
   * are, and skips at most one shuffle window's rows it reads but does not deliver.
   */
  public static ReadPlan resumed(
      List<Group> fileOrder,
      List<Segment> segments,
      int batchSize,
      boolean dropLast,
      boolean shuffle,
      long seed,
      int epoch,
      int windowRows) {
    List<Group> groups = nonEmpty(fileOrder);
    long rows = 0;
    for (Group group : groups) {
      rows += group.rows();
    }
    StreamSplit.Plan split = StreamSplit.replay(rows, segments, batchSize, dropLast, windowRows);
    List<Group> order = ordered(groups, shuffle, seed, epoch);
    long[] starts = starts(order);
    GroupStripes stripes = GroupStripes.of(groups, shuffle, windowRows);
    List<List<ReadRun>> ranks = new ArrayList<>();
    List<List<StreamPart>> parts = new ArrayList<>();
    for (List<OrderSlice> rank : split.ranks()) {
      List<ReadRun> runs = new ArrayList<>();
      List<StreamPart> rankParts = new ArrayList<>();
      for (OrderSlice slice : rank) {
        List<ReadRun> sliceRuns = runs(order, starts, rows, slice.from(), slice.to(), stripes);
        runs.addAll(sliceRuns);
        rankParts.add(new StreamPart(slice, sliceRuns));
      }
      ranks.add(List.copyOf(runs));
      parts.add(List.copyOf(rankParts));
    }
    return new ReadPlan(
        rows,
        groups.size(),
        split.perRank(),
        (int) batches(split.perRank(), batchSize, dropLast),
        split.dropped(),
        split.padded(rows, shuffle, seed, epoch),
        List.copyOf(ranks),
        List.copyOf(parts));
  }

  /**
   * The plan of epoch {@code epoch} in {@code global}'s order on {@code worldSize} ranks: the
   * epoch's order (as {@link #plan}'s) cut into the global batch's streams, each windowed by {@link
   * GlobalBatch#streamWindow} and shuffled by its own index; rank {@code r} reads its share of the
   * streams in turn. Only whole global batches are read; the tail is dropped.
   */
  public static ReadPlan global(
      List<Group> fileOrder,
      GlobalBatch global,
      int worldSize,
      boolean shuffle,
      long seed,
      int epoch,
      String input,
      int windowRows) {
    return global(fileOrder, global, worldSize, 0, shuffle, seed, epoch, input, windowRows);
  }

  /**
   * {@link #global} of the rest of an epoch after {@code segments} (the last one the ranks that
   * resume, with nothing consumed yet), on any world size that divides the global batch and its
   * streams: each stream goes on where the global batches consumed left it.
   */
  public static ReadPlan globalResumed(
      List<Group> fileOrder,
      GlobalBatch global,
      List<Segment> segments,
      boolean shuffle,
      long seed,
      int epoch,
      String input,
      int windowRows) {
    long consumed = 0;
    for (Segment segment : segments) {
      consumed = Math.addExact(consumed, segment.allRanks());
    }
    if (consumed % global.rows() != 0) {
      throw new IllegalArgumentException(
          String.format(
              "resumeFrom: the state consumed %d rows, not a whole number of %d-row global "
                  + "batches (expected: a state taken between steps, as the loader's state() "
                  + "takes it)",
              consumed, global.rows()));
    }
    int worldSize = segments.get(segments.size() - 1).worldSize();
    return global(
        fileOrder,
        global,
        worldSize,
        consumed / global.rows(),
        shuffle,
        seed,
        epoch,
        input,
        windowRows);
  }

  private static ReadPlan global(
      List<Group> fileOrder,
      GlobalBatch global,
      int worldSize,
      long done,
      boolean shuffle,
      long seed,
      int epoch,
      String input,
      int windowRows) {
    global.check(worldSize);
    List<Group> groups = nonEmpty(fileOrder);
    long rows = 0;
    for (Group group : groups) {
      rows += group.rows();
    }
    if (global.rows() > rows) {
      throw new IllegalArgumentException(
          String.format(
              "globalBatchSize=%d rows per step, but %s hold(s) %d row(s) (expected: at most %d; "
                  + "lower globalBatchSize)",
              global.rows(), input, rows, rows));
    }
    long batches = rows / global.rows();
    if (done > batches) {
      throw new IllegalArgumentException(
          String.format(
              "resumeFrom: the state consumed %d global batches of an epoch of %d (expected: at "
                  + "most %d; a state of this input and these options)",
              done, batches, batches));
    }
    if (batches - done > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          String.format(
              "globalBatchSize: %d gives %d global batches (expected: at most %d; raise "
                  + "globalBatchSize)",
              global.rows(), batches - done, Integer.MAX_VALUE));
    }
    int window = global.streamWindow(windowRows);
    List<Group> order = ordered(groups, shuffle, seed, epoch);
    long[] starts = starts(order);
    GroupStripes stripes = GroupStripes.of(groups, shuffle, window);
    int perRank = global.streams() / worldSize;
    List<List<ReadRun>> ranks = new ArrayList<>();
    List<List<StreamPart>> parts = new ArrayList<>();
    for (int rank = 0; rank < worldSize; rank++) {
      List<ReadRun> runs = new ArrayList<>();
      List<StreamPart> rankParts = new ArrayList<>();
      for (int stream = rank * perRank; stream < (rank + 1) * perRank; stream++) {
        int take = global.streamRows(stream);
        long from = batches * global.start(stream);
        OrderSlice slice =
            OrderSlice.whole(from, from + batches * take, window, stream).after(done * take);
        List<ReadRun> sliceRuns = runs(order, starts, rows, slice.from(), slice.to(), stripes);
        runs.addAll(sliceRuns);
        rankParts.add(new StreamPart(slice, sliceRuns, take));
      }
      ranks.add(List.copyOf(runs));
      parts.add(List.copyOf(rankParts));
    }
    int rankBatch = global.rankBatch(worldSize);
    return new ReadPlan(
        rows,
        groups.size(),
        (batches - done) * rankBatch,
        (int) (batches - done),
        rows - batches * global.rows(),
        0,
        List.copyOf(ranks),
        List.copyOf(parts));
  }

  static List<Group> nonEmpty(List<Group> fileOrder) {
    List<Group> groups = new ArrayList<>();
    for (Group group : fileOrder) {
      if (group.rows() > 0) {
        groups.add(group);
      }
    }
    return groups;
  }

  static long batches(long perRank, int batchSize, boolean dropLast) {
    long batches = EpochSplit.batches(perRank, batchSize, dropLast);
    if (batches > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "batchSize: "
              + batchSize
              + " gives "
              + batches
              + " batches per rank (expected: at most "
              + Integer.MAX_VALUE
              + "; raise batchSize)");
    }
    return batches;
  }

  static long[] starts(List<Group> order) {
    long[] starts = new long[order.size()];
    for (int i = 1; i < starts.length; i++) {
      starts[i] = starts[i - 1] + order.get(i - 1).rows();
    }
    return starts;
  }

  static List<Group> ordered(List<Group> groups, boolean shuffle, long seed, int epoch) {
    if (!shuffle) {
      return groups;
    }
    List<Group> order = new ArrayList<>(groups.size());
    for (int i : Permutations.permutation(groups.size(), seed, epoch)) {
      order.add(groups.get(i));
    }
    return order;
  }

  /** The runs of positions {@code [from, to)} of the order (positions past the end wrap). */
  static List<ReadRun> runs(List<Group> order, long[] starts, long rows, long from, long to) {
    return runs(order, starts, rows, from, to, GroupStripes.NONE);
  }

  /** The runs of positions {@code [from, to)} of the order laid out as {@code stripes} say. */
  static List<ReadRun> runs(
      List<Group> order, long[] starts, long rows, long from, long to, GroupStripes stripes) {
    List<ReadRun> runs = new ArrayList<>();
    RunBuilder[] run = new RunBuilder[1];
    stripes.pieces(
        order,
        starts,
        rows,
        from,
        to,
        (i, offset, count) -> {
          Group group = order.get(i);
          // dealt blocks stay runs of their own, so each goes on in its row group's reader
          if (run[0] == null || stripes.deals() || !run[0].extend(group, offset, count)) {
            if (run[0] != null) {
              runs.add(run[0].build());
            }
            run[0] = new RunBuilder(group, offset, count);
          }
        });
    if (run[0] != null) {
      runs.add(run[0].build());
    }
    return List.copyOf(runs);
  }

  /** A run growing by whole row groups that follow each other in one file. */
  private static final class RunBuilder {
    private final Group first;
    private final long skipRows;
    private Group last;
    private int rowGroups = 1;
    private long groupRows;
    private long rows;
    private long bytes;
    private boolean endsAtGroupEnd;

    RunBuilder(Group group, long offset, long count) {
      this.first = group;
      this.last = group;
      this.skipRows = offset;
      add(group, offset, count);
    }

    private void add(Group group, long offset, long count) {
      groupRows += group.rowGroup().rows();
      rows += count;
      bytes += group.bytes();
      endsAtGroupEnd = offset + count == group.rows();
    }

    boolean extend(Group group, long offset, long count) {
      if (!endsAtGroupEnd
          || offset != 0
          || !group.path().equals(last.path())
          || group.rowGroup().ordinal() != last.rowGroup().ordinal() + 1
          || group.decodable() != first.decodable()
          || group.kept() != first.kept()) {
        return false;
      }
      last = group;
      rowGroups++;
      add(group, offset, count);
      return true;
    }

    private static long end(Group group) {
      return group.rowGroup().firstRow() + group.rowGroup().rows();
    }

    ReadRun build() {
      long start = first.rowGroup().start();
      long end = last.rowGroup().start() + last.rowGroup().bytes();
      return new ReadRun(
          first.path(),
          start,
          end - start,
          first.rowGroup().ordinal(),
          rowGroups,
          first.rowGroup().firstRow(),
          groupRows,
          skipRows,
          rows,
          bytes,
          first.decodable(),
          first.inputRow() < 0 ? -1 : first.inputRow() + skipRows,
          first.kept() == null ? null : first.kept().slice(first.rowGroup().firstRow(), end(last)));
    }
  }
}
