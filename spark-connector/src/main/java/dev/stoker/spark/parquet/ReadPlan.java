package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.List;

/**
 * What every rank reads in one epoch: {@code rowsPerRank} rows each, as runs of row groups, and
 * what planning left out.
 *
 * @param rows the rows of the files
 * @param rowGroups the row groups of the files
 * @param batchesPerRank batches every rank yields
 * @param droppedRows rows no rank reads ({@code dropLast}: the tail past the last full step)
 * @param paddedRows rows read twice (without {@code dropLast}: ranks are padded to equal rows from
 *     the start of the epoch's order, as PyTorch's DistributedSampler pads)
 * @param ranks each rank's runs, in reading order
 * @param parts each rank's parts, for an epoch resumed mid-way or packed (else empty)
 * @param packed with packed tokens, each rank's span and the epoch's token counts; else null
 */
public record ReadPlan(
    long rows,
    int rowGroups,
    long rowsPerRank,
    int batchesPerRank,
    long droppedRows,
    long paddedRows,
    List<List<ReadRun>> ranks,
    List<List<StreamPart>> parts,
    PackedTokens packed)
    implements Serializable {

  /**
   * The tokens of a packed epoch.
   *
   * @param spans each rank's span of the epoch's stream of tokens
   * @param tokens the epoch's tokens (ids and end tokens)
   * @param droppedTokens the tokens past the last rank's span, which no rank packs
   */
  public record PackedTokens(List<TokenSpan> spans, long tokens, long droppedTokens)
      implements Serializable {
    public PackedTokens {
      spans = List.copyOf(spans);
    }
  }

  /** A plan of rows, fresh or resumed. */
  public ReadPlan(
      long rows,
      int rowGroups,
      long rowsPerRank,
      int batchesPerRank,
      long droppedRows,
      long paddedRows,
      List<List<ReadRun>> ranks,
      List<List<StreamPart>> parts) {
    this(rows, rowGroups, rowsPerRank, batchesPerRank, droppedRows, paddedRows, ranks, parts, null);
  }

  /** A fresh epoch's plan. */
  public ReadPlan(
      long rows,
      int rowGroups,
      long rowsPerRank,
      int batchesPerRank,
      long droppedRows,
      long paddedRows,
      List<List<ReadRun>> ranks) {
    this(rows, rowGroups, rowsPerRank, batchesPerRank, droppedRows, paddedRows, ranks, List.of());
  }

  /** What rank {@code rank} reads. */
  public RankRuns rank(int rank) {
    return new RankRuns(
        rank,
        rowsPerRank,
        ranks.get(rank),
        parts.isEmpty() ? List.of() : parts.get(rank),
        packed == null ? null : packed.spans().get(rank));
  }
}
