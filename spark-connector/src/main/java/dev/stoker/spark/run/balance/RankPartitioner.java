package dev.stoker.spark.run.balance;

import org.apache.spark.Partitioner;

/** Sends a block keyed by its rank to that rank's partition. */
public final class RankPartitioner extends Partitioner {
  private static final long serialVersionUID = 1L;

  private final int worldSize;

  public RankPartitioner(int worldSize) {
    this.worldSize = worldSize;
  }

  @Override
  public int numPartitions() {
    return worldSize;
  }

  @Override
  public int getPartition(Object key) {
    return (Integer) key;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RankPartitioner other && other.worldSize == worldSize;
  }

  @Override
  public int hashCode() {
    return worldSize;
  }
}
