package dev.stoker.spark.parquet;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.OptionNames;
import dev.stoker.loader.state.InputFingerprint;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.options.SparkOptionTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * A streamed read's states: the fingerprint of its files, the state after some batches on every
 * rank, and the checks before a read resumes from one.
 */
public final class ParquetResume {
  private ParquetResume() {}

  /**
   * Each file's path, size and modification time, as the file system says now; for a table, its
   * version.
   */
  static InputFingerprint fingerprint(SourceDataset dataset) {
    if (dataset.table() != null) {
      // a table's files never change in place; its version says which files and rows it holds
      TableSnapshot table = dataset.table();
      return new InputFingerprint(
          List.of(InputFingerprint.Entry.version(table.table().describe(), table.version())));
    }
    Configuration conf = dataset.hadoop().get();
    List<InputFingerprint.Entry> entries = new ArrayList<>();
    for (ParquetFile file : dataset.files()) {
      Path path = new Path(file.path());
      try {
        FileStatus status = path.getFileSystem(conf).getFileStatus(path);
        entries.add(
            new InputFingerprint.Entry(file.path(), status.getLen(), status.getModificationTime()));
      } catch (IOException e) {
        throw new UncheckedIOException(
            "reading the status of '" + file.path() + "': " + e.getMessage(), e);
      }
    }
    return new InputFingerprint(entries);
  }

  /**
   * The state after {@code batches} more batches on each rank from {@code base} (a segment with
   * nothing consumed yet) of a plan of {@code batchesPerRank} batches per rank; after the last one,
   * the start of the next epoch, its rows planned in that epoch's order if {@code
   * orderFollowsEpoch} (a read), else in the same order (a run).
   */
  public static LoaderState after(
      LoaderState base, int batchesPerRank, long batches, boolean orderFollowsEpoch) {
    if (batches < 0 || batches > batchesPerRank) {
      throw new IllegalArgumentException(
          "batches: "
              + batches
              + " (expected: 0 <= batches <= "
              + batchesPerRank
              + ", the batches every rank yields)");
    }
    if (batches == batchesPerRank) {
      int next = base.epoch() + 1;
      return LoaderState.startOf(
              base.seed(),
              base.shuffle(),
              next,
              orderFollowsEpoch ? next : base.orderEpoch(),
              base.worldSize(),
              base.batchSize(),
              base.dropLast(),
              base.windowRows(),
              base.input())
          .inStreams(base.orderStreams());
    }
    return base.plusBatches(batches);
  }

  /**
   * Checks that {@code state} was taken in this read's order: the same shuffle and seed, batch size
   * and dropLast (earlier segments are replayed with them), a streamed read's state, on the same
   * files ({@code current}; null: not checked).
   */
  static void check(LoaderState state, LoaderOptions loader, InputFingerprint current) {
    check(state, loader, null, current);
  }

  /**
   * {@link #check}, for a read in {@code global}'s order (null: each rank's own): a state of the
   * same global batch and streams, whatever its ranks' batch.
   */
  static void check(
      LoaderState state, LoaderOptions loader, GlobalBatch global, InputFingerprint current) {
    if (state.windowRows() == 0) {
      throw new IllegalArgumentException(
          "resumeFrom: the state is an indexed loader's, not a "
              + "Parquet read's (expected: a state of a format(\"stoker\") read or a StokerSpark run "
              + "over Parquet files)");
    }
    same(OptionNames.SHUFFLE, state.shuffle(), loader.shuffle());
    if (state.shuffle()) {
      same(OptionNames.SEED, state.seed(), loader.seed());
    }
    int streams = global == null ? 0 : global.streams();
    if (state.orderStreams() != streams) {
      throw new IllegalArgumentException(
          String.format(
              "resumeFrom: the state was taken %s, this read %s (expected: the same order)",
              order(state.orderStreams(), state.globalBatchRows()),
              order(streams, global == null ? 0 : global.rows())));
    }
    if (global != null) {
      same(SparkOptionTable.GLOBAL_BATCH_SIZE.name(), (int) state.globalBatchRows(), global.rows());
    } else {
      same(OptionNames.BATCH_SIZE, state.batchSize(), loader.batchSize());
    }
    same(OptionNames.DROP_LAST, state.dropLast(), loader.dropLast());
    if (current != null) {
      state.input().check(current);
    }
  }

  private static String order(int streams, long globalRows) {
    return streams == 0
        ? "in each rank's own order"
        : String.format(
            "in a global order (%s=%d, %s=%d)",
            SparkOptionTable.GLOBAL_BATCH_SIZE.name(),
            globalRows,
            SparkOptionTable.ORDER_STREAMS.name(),
            streams);
  }

  private static void same(String name, Object taken, Object given) {
    if (!taken.equals(given)) {
      throw new IllegalArgumentException(
          String.format(
              "resumeFrom: the state was taken with "
                  + "%s=%s, this read has %s=%s (expected: the same order; set %s=%s)",
              name, taken, name, given, name, taken));
    }
  }
}
