package dev.stoker.loader;

import dev.stoker.loader.metrics.EpochCounters;

/**
 * What a {@link DataLoader} reads from, one of two kinds: an {@link IndexedSource} (a map dataset
 * ordered by samplers) or a {@link StreamedSource} (a stream of column chunks). Each epoch it opens
 * an {@link EpochSource} that the pipeline's workers write batches from.
 */
interface LoaderSource {
  Schema schema();

  /** Batches every epoch yields on this rank, or -1 when known only at the end of the stream. */
  int batchCount();

  /** Batches epoch {@code epoch} yields on this rank (fewer in a resumed epoch); -1 if unknown. */
  default int batchCount(int epoch) {
    return batchCount();
  }

  /** Positions of epoch {@code epoch}'s order consumed before it starts: > 0 only if resumed. */
  default long startRow(int epoch) {
    return 0;
  }

  /** Rows of this rank's share of epoch {@code epoch} that no batch holds; -1 if unknown. */
  long droppedRows(int epoch);

  /** Rows of epoch {@code epoch} no batch holds over all ranks; -1 if unknown. */
  long droppedRowsAllRanks(int epoch);

  /** Opens epoch {@code epoch}. */
  EpochSource open(int epoch, EpochCounters counters) throws Exception;

  /** The source's size, for messages (e.g. {@code 1000 samples}). */
  String describe();
}
