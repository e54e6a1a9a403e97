package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * What one rank reads in an epoch: exactly {@code rows} rows, as runs of row groups in reading
 * order; for an epoch resumed mid-way, as {@code parts} (each windowed and cut as its slice says),
 * whose runs {@code runs} lists too. With packed tokens, {@code rows} are packed rows, made of the
 * parts' documents as {@code tokens} says. {@code footers} holds, by path, the status and footer of
 * each of its files on remote storage, which it then need not ask for.
 */
public record RankRuns(
    int rank,
    long rows,
    List<ReadRun> runs,
    List<StreamPart> parts,
    TokenSpan tokens,
    Map<String, FileFooter> footers)
    implements Serializable {
  public RankRuns {
    runs = List.copyOf(runs);
    parts = List.copyOf(parts);
    footers = Map.copyOf(footers);
  }

  /** A rank that reads its files' footers itself. */
  public RankRuns(
      int rank, long rows, List<ReadRun> runs, List<StreamPart> parts, TokenSpan tokens) {
    this(rank, rows, runs, parts, tokens, Map.of());
  }

  /** A rank that reads rows (no token span). */
  public RankRuns(int rank, long rows, List<ReadRun> runs, List<StreamPart> parts) {
    this(rank, rows, runs, parts, null);
  }

  /**
   * The rows its stream delivers: {@code rows}, or with a token span the documents the packed
   * {@code rows} are made of.
   */
  public long streamRows() {
    return tokens == null ? rows : tokens.documents();
  }

  /** A rank of a fresh epoch: its rows as runs, read and windowed from the first. */
  public RankRuns(int rank, long rows, List<ReadRun> runs) {
    this(rank, rows, runs, List.of());
  }

  /**
   * Whether the rank's parts take turns ({@link StreamPart#perTurn}): the streams of a {@link
   * GlobalBatch}.
   */
  public boolean takesTurns() {
    return !parts.isEmpty() && parts.get(0).perTurn() > 0;
  }

  /** The streams the rank reads at once, each with its own shuffle windows. */
  public int streams() {
    return takesTurns() ? parts.size() : 1;
  }

  /** Whether the rank streams the parts of a resumed epoch. */
  public boolean resumed() {
    return !parts.isEmpty();
  }

  /**
   * The parts the rank streams, in order: those planned for it (a resumed epoch's rest, the streams
   * of a {@link GlobalBatch}), else one over all its rows, shuffled in windows of {@code
   * windowRows} ({@link #windowRows}) with its rank in the seed.
   */
  public List<StreamPart> streamParts(int windowRows) {
    if (resumed()) {
      return parts;
    }
    return List.of(
        new StreamPart(new OrderSlice(0, rows, windowRows(windowRows), rank, 0, 0, rows), runs));
  }

  /** The rows a shuffle window must hold: the largest window of a part, or {@code windowRows}. */
  public int windowRows(int windowRows) {
    if (parts.isEmpty()) {
      return (int) Math.max(1, Math.min(windowRows, rows));
    }
    int most = 1;
    for (StreamPart part : parts) {
      most = Math.max(most, part.slice().window());
    }
    return most;
  }
}
