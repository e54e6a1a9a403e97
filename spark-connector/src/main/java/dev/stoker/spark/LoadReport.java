package dev.stoker.spark;

import java.io.Serializable;
import java.util.List;

/**
 * What a run loaded, over all ranks and per rank. {@code droppedRows} are the input rows no batch
 * holds in an epoch: with dropLast, every rank stops at the same multiple of batchSize.
 *
 * @param rows rows of the input
 * @param inputPartitions partitions of the input
 * @param columnar whether the input was read as columnar batches (e.g. a Parquet scan), a run of
 *     rows at a time, rather than row by row
 * @param streamed whether the ranks streamed the input's Parquet files into their loaders, planned
 *     by row group from the footers (a plain Parquet scan or a {@code format("stoker")} read): no
 *     shuffle, no shard written before the first batch
 * @param rebalanced whether the rows went through one shuffle to reach their ranks (false when the
 *     input already had one partition per rank with equal counts)
 * @param rapids whether the RAPIDS Accelerator ran the input's plan
 * @param epochOrders for a streamed input, how far each epoch's order was from a random
 *     permutation, from the plan ({@code PlanQuality}), e.g. {@code epoch 0: gap entropy ...}; else
 *     empty
 */
public record LoadReport(
    long rows,
    int worldSize,
    int batchSize,
    boolean dropLast,
    int batchesPerEpoch,
    long droppedRows,
    long paddedRows,
    int inputPartitions,
    boolean columnar,
    boolean streamed,
    boolean rebalanced,
    RapidsStatus rapids,
    List<RankReport> ranks,
    List<String> epochOrders)
    implements Serializable {

  public LoadReport {
    ranks = List.copyOf(ranks);
    epochOrders = List.copyOf(epochOrders);
  }

  public RankReport rank(int rank) {
    return ranks.get(rank);
  }

  /** Samples the ranks left out as bad ({@code onBadSample=skip}), over every epoch. */
  public long skippedSamples() {
    long skipped = 0;
    for (RankReport rank : ranks) {
      skipped += rank.skippedSamples();
    }
    return skipped;
  }

  @Override
  public String toString() {
    StringBuilder text =
        new StringBuilder(
            String.format(
                "stoker: %d rows from %d %s (%s) %s %d ranks, %d batches of %d per rank and "
                    + "epoch, %d rows dropped, %d padded, %d samples skipped as bad; RAPIDS "
                    + "Accelerator %s",
                rows,
                inputPartitions,
                streamed ? "files" : "partitions",
                streamed
                    ? "Parquet row groups planned per rank"
                    : columnar ? "columnar batches" : "rows",
                streamed ? "streamed to" : rebalanced ? "shuffled once to" : "read in place by",
                worldSize,
                batchesPerEpoch,
                batchSize,
                droppedRows,
                paddedRows,
                skippedSamples(),
                rapids.summary()));
    for (RankReport rank : ranks) {
      text.append(System.lineSeparator()).append("  ").append(rank.line());
    }
    for (String order : epochOrders) {
      text.append(System.lineSeparator()).append("  order, ").append(order);
    }
    return text.toString();
  }
}
