package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * @param footers the status and footer of each file on remote storage, by path, which each rank
 *     gets for the files it reads
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
    PackedTokens packed,
    Map<String, FileFooter> footers)
    implements Serializable {

  /** A plan whose ranks read their files' footers themselves. */
  public ReadPlan(
      long rows,
      int rowGroups,
      long rowsPerRank,
      int batchesPerRank,
      long droppedRows,
      long paddedRows,
      List<List<ReadRun>> ranks,
      List<List<StreamPart>> parts,
      PackedTokens packed) {
    this(
        rows,
        rowGroups,
        rowsPerRank,
        batchesPerRank,
        droppedRows,
        paddedRows,
        ranks,
        parts,
        packed,
        Map.of());
  }

  /** This plan with {@code sent}: the footers its ranks get, by path. */
  public ReadPlan withFooters(Map<String, FileFooter> sent) {
    return new ReadPlan(
        rows,
        rowGroups,
        rowsPerRank,
        batchesPerRank,
        droppedRows,
        paddedRows,
        ranks,
        parts,
        packed,
        Map.copyOf(sent));
  }

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

  /** What rank {@code rank} reads, with the footers of its files that the plan holds. */
  public RankRuns rank(int rank) {
    Map<String, FileFooter> sent = new HashMap<>();
    List<StreamPart> rankParts = parts.isEmpty() ? List.of() : parts.get(rank);
    List<ReadRun> runs = new ArrayList<>(ranks.get(rank));
    rankParts.forEach(part -> runs.addAll(part.runs()));
    for (ReadRun run : runs) {
      FileFooter footer = footers.get(run.path());
      if (footer != null) {
        sent.put(run.path(), footer);
      }
    }
    return new RankRuns(
        rank,
        rowsPerRank,
        ranks.get(rank),
        rankParts,
        packed == null ? null : packed.spans().get(rank),
        sent);
  }
}
