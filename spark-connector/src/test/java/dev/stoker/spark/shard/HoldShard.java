package dev.stoker.spark.shard;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A process of its own that creates shard folders, says {@code held} and keeps the folders (and
 * their locks) until its standard input ends or it is killed: a live or dead owner for the tests. A
 * name starting {@code .staging-} is a staging folder holding only its locked lock file: a process
 * stopped inside {@code ShardFiles.create}.
 */
public final class HoldShard {
  private HoldShard() {}

  public static void main(String[] args) throws Exception {
    List<FileChannel> held = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      if (args[i].startsWith(".staging-")) {
        Path staging = Files.createDirectory(Path.of(args[0]).resolve(args[i]));
        FileChannel lock =
            FileChannel.open(
                staging.resolve(ShardFiles.LOCK_FILE),
                StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE);
        lock.lock();
        held.add(lock);
      } else {
        ShardFiles.create(Path.of(args[0]), args[i]);
      }
    }
    System.out.println("held");
    System.out.flush();
    while (System.in.read() >= 0) {
      // holds until stdin closes
    }
    held.clear();
  }
}
