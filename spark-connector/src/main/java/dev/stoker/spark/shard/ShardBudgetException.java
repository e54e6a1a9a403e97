package dev.stoker.spark.shard;

/** A shard that would not fit its byte budget or its disk: the input, not a fault, so no retry. */
public final class ShardBudgetException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public ShardBudgetException(String message) {
    super(message);
  }
}
