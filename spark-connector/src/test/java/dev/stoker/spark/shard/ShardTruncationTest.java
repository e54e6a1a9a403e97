package dev.stoker.spark.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Schema;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard file truncated while worker threads read it (raw copies or normalized values, workers or
 * the consumer's thread), again and again at random moments: every time the loader's epoch ends
 * with the {@link ShardChangedException} naming the file, and closing the loader leaves no thread
 * and no slot. The JVM reports the fault of a compiled read late, at some later point of the
 * thread; the shard's per-batch check makes that point its own. A longer run: {@code
 * -Dstoker.shardTruncations=300}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ShardTruncationTest {
  private static final ShardLayout LAYOUT =
      new ShardLayout(
          Schema.of(Field.of("x", DType.UINT8, 4, 256), Field.scalar("id", DType.INT64)));
  private static final Normalization NORMALIZE_X =
      Normalization.of(
          "x", new double[] {0.5, 0.5, 0.5, 0.5}, new double[] {0.25, 0.25, 0.25, 0.25});

  /** Each run's worker count: the consumer's own thread too. */
  private static final int[] WORKERS = {2, 0, 2, 1};

  private static final int ROWS = 1 << 14;

  @TempDir Path temp;

  @Test
  void shouldEndEveryTruncationWithTheShardChangedAndNothingLeft() throws Exception {
    int runs = Integer.getInteger("stoker.shardTruncations", 12);
    Random random = new Random(14);
    for (int run = 0; run < runs; run++) {
      truncateWhileWorkersRead(run, random.nextInt(4_000));
    }
  }

  @Test
  void shouldReportAFaultRaisedBetweenTwoSamplesAsTheShardChanged() throws Exception {
    ShardFiles files = ShardFiles.create(temp, "shard-between");
    MappedShard shard;
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 1 << 25, "rank 0")) {
      writer.write(
          0, 64, new ByteBuffer[] {ByteBuffer.allocate(64 * 1024), ByteBuffer.allocate(64 * 8)});
      shard = writer.map(64);
    }
    Path x = files.folder().resolve("0-x.col");
    try (FileChannel channel = FileChannel.open(x, StandardOpenOption.WRITE)) {
      channel.truncate(0);
    }
    ShardDataset dataset = new ShardDataset(shard, 64);
    // what the JVM raises when it reports a fault at a transition of the loader's own code
    InternalError fault =
        new InternalError(
            "a fault occurred in a recent unsafe memory access operation in compiled Java code");
    assertThatThrownBy(() -> dataset.checkBatch(new IllegalStateException("batch 3", fault)))
        .isInstanceOf(ShardChangedException.class)
        .hasNoCause()
        .hasMessageStartingWith(
            "shard file " + x + " changed while mapped: 0 bytes, " + 64 * 1024 + " bytes expected");
    assertThat(shard.changed()).isNotNull();
    files.delete();
  }

  private void truncateWhileWorkersRead(int run, int delayMicros) throws Exception {
    ShardFiles files = ShardFiles.create(temp, "shard-" + run);
    MappedShard shard;
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 1 << 25, "rank 0")) {
      writer.write(
          0,
          ROWS,
          new ByteBuffer[] {ByteBuffer.allocate(ROWS * 1024), ByteBuffer.allocate(ROWS * 8)});
      shard = writer.map(ROWS);
    }
    Path x = files.folder().resolve("0-x.col");
    ShardDataset dataset =
        new ShardDataset(shard, ROWS, run % 3 == 1 ? List.of(NORMALIZE_X) : List.of());
    DataLoader loader =
        new DataLoader(
            dataset,
            LoaderOptions.builder()
                .batchSize(32)
                .shuffle(true)
                .numWorkers(WORKERS[run % WORKERS.length])
                .name("truncated-" + run)
                .build());
    Throwable failure = null;
    Thread truncator =
        new Thread(
            () -> {
              try {
                TimeUnit.MICROSECONDS.sleep(delayMicros);
                try (FileChannel channel = FileChannel.open(x, StandardOpenOption.WRITE)) {
                  channel.truncate(run % 2 == 0 ? 0 : 4096);
                }
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    try {
      for (Batch batch : loader.epoch(0)) {
        batch.close(); // the first epoch warms the copies up: compiled reads fault late
      }
      truncator.start();
      for (int epoch = 1; epoch < 1_000 && failure == null; epoch++) {
        try {
          for (Batch batch : loader.epoch(epoch)) {
            batch.close();
          }
        } catch (Throwable t) {
          failure = t;
        }
      }
    } finally {
      truncator.join();
      loader.close();
    }
    assertThat(failure).as("run %d", run).isNotNull();
    assertThat(shardChanged(failure))
        .as("run %d: %s", run, failure)
        .isNotNull()
        .hasNoCause()
        .hasMessageStartingWith(
            "shard file "
                + x
                + " changed while mapped: "
                + (run % 2 == 0 ? 0 : 4096)
                + " bytes, "
                + ROWS * 1024
                + " bytes expected");
    assertThat(loader.threadsRunning()).as("run %d: threads", run).isZero();
    assertThat(loader.slotsOut()).as("run %d: slots", run).isZero();
    assertThat(liveThreads("truncated-" + run + "-")).as("run %d", run).isEmpty();
    files.delete();
  }

  /** The first {@link ShardChangedException} in {@code t}'s causes, or null. */
  private static ShardChangedException shardChanged(Throwable t) {
    for (Throwable at = t; at != null; at = at.getCause() == at ? null : at.getCause()) {
      if (at instanceof ShardChangedException changed) {
        return changed;
      }
    }
    return null;
  }

  private static List<String> liveThreads(String prefix) {
    List<String> names = new ArrayList<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.isAlive() && thread.getName().startsWith(prefix)) {
        names.add(thread.getName());
      }
    }
    return names;
  }
}
