package dev.stoker.spark.shard;

import java.nio.file.Path;

/**
 * A process of its own that creates shard folders, says {@code held} and keeps the folders (and
 * their locks) until its standard input ends or it is killed: a live or dead owner for the tests.
 */
public final class HoldShard {
  private HoldShard() {}

  public static void main(String[] args) throws Exception {
    for (int i = 1; i < args.length; i++) {
      ShardFiles.create(Path.of(args[0]), args[i]);
    }
    System.out.println("held");
    System.out.flush();
    while (System.in.read() >= 0) {
      // holds until stdin closes
    }
  }
}
