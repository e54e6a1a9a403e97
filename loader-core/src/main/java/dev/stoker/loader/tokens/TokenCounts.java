package dev.stoker.loader.tokens;

/**
 * What one epoch's rows of a rank were made of: written by the stream's one thread, read by any
 * (the figures are published as they change and exact once the stream has ended).
 */
public final class TokenCounts {
  private volatile long documents;
  private volatile long tokens;
  private volatile long rows;
  private volatile long paddingTokens;
  private volatile long cutTokens;
  private volatile long tailTokens;

  /** Documents read (whole or in part). */
  public long documents() {
    return documents;
  }

  /** Tokens placed in rows (ids and end tokens), padding excluded. */
  public long tokens() {
    return tokens;
  }

  /** Rows made. */
  public long rows() {
    return rows;
  }

  /** Padding tokens placed in rows. */
  public long paddingTokens() {
    return paddingTokens;
  }

  /**
   * Tokens dropped because their document was longer than a row ({@code cut}, {@code truncate}).
   */
  public long cutTokens() {
    return cutTokens;
  }

  /** Tokens read but not placed at the stream's end: a packed row left short. */
  public long tailTokens() {
    return tailTokens;
  }

  /** The share of the rows' positions that hold padding, 0 for none or no rows. */
  public double paddingFraction() {
    long all = tokens + paddingTokens;
    return all == 0 ? 0 : (double) paddingTokens / all;
  }

  void addDocument() {
    documents++;
  }

  void addTokens(long count) {
    tokens += count;
  }

  void addRow() {
    rows++;
  }

  void addPadding(long count) {
    paddingTokens += count;
  }

  void addCut(long count) {
    cutTokens += count;
  }

  void addTail(long count) {
    tailTokens += count;
  }

  @Override
  public String toString() {
    return String.format(
        "%d rows of %d documents: %d tokens, %d padding (%.2f %%), %d cut, %d left in the tail",
        rows, documents, tokens, paddingTokens, 100 * paddingFraction(), cutTokens, tailTokens);
  }
}
