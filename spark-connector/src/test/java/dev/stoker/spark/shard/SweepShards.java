package dev.stoker.spark.shard;

import java.nio.file.Path;

/** A process of its own that sweeps a folder's shards and prints what it removed. */
public final class SweepShards {
  private SweepShards() {}

  public static void main(String[] args) {
    System.out.println("removed " + ShardFiles.sweep(Path.of(args[0])).size());
  }
}
