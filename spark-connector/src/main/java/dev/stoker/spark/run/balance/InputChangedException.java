package dev.stoker.spark.run.balance;

/**
 * An input partition held other rows when it was read than when it was counted: the DataFrame is
 * not deterministic, and the ranks' shards would not add up to it.
 */
public final class InputChangedException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public InputChangedException(String message) {
    super(message);
  }
}
