package dev.stoker.spark.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.spark.testing.SparkClusters;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard's folder and files: owner-only from their creation, a shard file changed before it is
 * mapped refused by name, and the shards of dead processes found and removed by the next rank,
 * never a live one nor anything that is not Stoker's.
 */
@Timeout(60)
class ShardFilesTest {
  private static final ShardLayout LAYOUT =
      new ShardLayout(Schema.of(Field.of("x", DType.FLOAT32, 3), Field.scalar("id", DType.INT64)));

  @TempDir Path temp;

  private static String permissions(Path path) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  @Test
  void shouldCreateTheFolderAndEveryFileOwnerOnly() throws Exception {
    ShardFiles files = ShardFiles.create(temp, "shard-a");
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 1 << 20, "rank 0")) {
      assertThat(permissions(files.folder())).isEqualTo("rwx------");
      try (var list = Files.list(files.folder())) {
        List<Path> all = list.sorted().toList();
        assertThat(all)
            .extracting(p -> p.getFileName().toString())
            .containsExactly(".stoker-shard.lock", "0-x.col", "1-id.col");
        for (Path file : all) {
          assertThat(permissions(file)).as(file.toString()).isEqualTo("rw-------");
        }
      }
    } finally {
      files.delete();
    }
    assertThat(temp).isEmptyDirectory();
  }

  @Test
  void shouldRefuseToMapAShardFileThatShrankAfterItWasWritten() throws Exception {
    ShardFiles files = ShardFiles.create(temp, "shard-b");
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 1 << 20, "rank 0")) {
      writer.write(
          0,
          4,
          new java.nio.ByteBuffer[] {
            java.nio.ByteBuffer.allocate(48), java.nio.ByteBuffer.allocate(32)
          });
      Path x = files.folder().resolve("0-x.col");
      try (FileChannel channel = FileChannel.open(x, StandardOpenOption.WRITE)) {
        channel.truncate(20);
      }
      assertThatThrownBy(() -> writer.map(4))
          .hasMessage(
              "shard file "
                  + x
                  + " changed before it was mapped: 20 bytes, 48 expected "
                  + "for 4 rows (expected: the shard's files left alone while its rank runs; keep "
                  + "other processes and cleanup jobs out of shardDir, or set shardDir to a folder of "
                  + "its own)");
    } finally {
      files.delete();
    }
  }

  @Test
  void shouldNameAShardFileTruncatedWhileALoaderReadsIt() throws Exception {
    ShardFiles files = ShardFiles.create(temp, "shard-c");
    int rows = 1 << 16;
    MappedShard shard;
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 1 << 24, "rank 0")) {
      writer.write(
          0,
          rows,
          new java.nio.ByteBuffer[] {
            java.nio.ByteBuffer.allocate(rows * 12), java.nio.ByteBuffer.allocate(rows * 8)
          });
      shard = writer.map(rows);
    }
    Path x = files.folder().resolve("0-x.col");
    Throwable failure = null;
    dev.stoker.loader.DataLoader loader =
        new dev.stoker.loader.DataLoader(
            new ShardDataset(shard, rows),
            dev.stoker.loader.LoaderOptions.builder()
                .batchSize(64)
                .shuffle(true)
                .numWorkers(2)
                .build());
    try {
      for (int epoch = 0; epoch < 50 && failure == null; epoch++) {
        try {
          for (dev.stoker.loader.Batch batch : loader.epoch(epoch)) {
            batch.close();
          }
        } catch (Throwable t) {
          failure = t;
        }
        if (epoch == 2) {
          try (FileChannel channel = FileChannel.open(x, StandardOpenOption.WRITE)) {
            channel.truncate(0);
          }
        }
      }
    } finally {
      try {
        loader.close();
      } catch (IllegalStateException e) {
        // the loader's own accounting of the failed batch's slot: not what this test is about
      }
    }
    assertThat(failure).isNotNull();
    // The JVM may deliver the fault of a compiled read after the read returned, past the
    // dataset's catch: then the rank (RankRuntime) asks the shard, as here, what happened.
    Throwable last = failure;
    while (last.getCause() != null) {
      last = last.getCause();
    }
    IOException reported = last instanceof ShardChangedException io ? io : shard.faulted(last);
    if (!(last instanceof ShardChangedException)) {
      assertThat(MappedShard.isMappedFault(last)).as(String.valueOf(last)).isTrue();
    }
    assertThat(reported)
        .hasNoCause()
        .hasMessage(
            "shard file "
                + x
                + " changed while mapped: 0 "
                + "bytes, "
                + rows * 12
                + " bytes expected (expected: the shard's files left alone while "
                + "its rank runs; keep other processes and cleanup jobs out of shardDir, or set shardDir "
                + "to a folder of its own)");
    files.delete();
  }

  @Test
  void shouldRemoveTheShardsOfDeadProcessesOnly() throws Exception {
    Process owner =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                SparkClusters.testClassPath(),
                HoldShard.class.getName(),
                temp.toString(),
                "shard-dead",
                "shard-dead-with-a-stranger")
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(owner.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("held");
      Path dead = temp.resolve("shard-dead");
      Files.writeString(dead.resolve("0-x.col"), "a column");
      Path foreign = temp.resolve("shard-dead-with-a-stranger");
      Files.writeString(foreign.resolve("0-x.col"), "a column");
      Files.writeString(foreign.resolve("notes.txt"), "someone else's file");
      ShardFiles mine = ShardFiles.create(temp, "shard-this-process");
      Files.writeString(
          Files.createDirectory(temp.resolve("shard-no-lock")).resolve("0-x.col"),
          "not Stoker's: no lock file");
      Path unrelated = Files.createDirectory(temp.resolve("results"));
      Files.writeString(unrelated.resolve(".stoker-shard.lock"), "");

      assertThat(ShardFiles.sweep(temp)).as("removed while every owner lives").isEmpty();
      assertThat(dead.resolve("0-x.col")).exists();
      owner.destroyForcibly(); // SIGKILL: the process cleans nothing up
      assertThat(owner.waitFor(20, TimeUnit.SECONDS)).isTrue();

      assertThat(ShardFiles.sweep(temp)).containsExactly(dead);
      assertThat(dead).doesNotExist();
      assertThat(foreign.resolve("0-x.col")).doesNotExist();
      assertThat(foreign.resolve("notes.txt")).exists();
      assertThat(mine.folder()).isDirectory();
      assertThat(temp.resolve("shard-no-lock/0-x.col")).exists();
      assertThat(unrelated.resolve(".stoker-shard.lock")).exists();
      mine.delete();
      assertThat(mine.folder()).doesNotExist();
      assertThat(ShardFiles.sweep(temp)).isEmpty();
    } finally {
      owner.destroyForcibly();
    }
  }

  @Test
  void shouldRemoveTheStagingFoldersOfDeadProcessesOnceTheyAreOld() throws Exception {
    Process owner =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                SparkClusters.testClassPath(),
                HoldShard.class.getName(),
                temp.toString(),
                ".staging-shard-killed")
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(owner.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("held");
      Path killed = temp.resolve(".staging-shard-killed");
      Path dead = staging(".staging-shard-dead", true);
      Path fresh = staging(".staging-shard-fresh", false);
      Path foreign = staging(".staging-shard-with-a-stranger", true);
      Files.writeString(foreign.resolve("notes.txt"), "someone else's file");
      Path noLock = Files.createDirectory(temp.resolve(".staging-shard-no-lock"));
      Files.setLastModifiedTime(noLock, FileTime.fromMillis(0));
      Files.setLastModifiedTime(killed, FileTime.fromMillis(0));
      Files.setLastModifiedTime(foreign, FileTime.fromMillis(0));

      assertThat(ShardFiles.sweep(temp)).as("removed while its owner lives").containsExactly(dead);
      assertThat(dead).doesNotExist();
      assertThat(killed.resolve(ShardFiles.LOCK_FILE)).exists();
      owner.destroyForcibly(); // SIGKILL, as if inside ShardFiles.create
      assertThat(owner.waitFor(20, TimeUnit.SECONDS)).isTrue();

      assertThat(ShardFiles.sweep(temp)).containsExactly(killed);
      assertThat(killed).doesNotExist();
      assertThat(fresh.resolve(ShardFiles.LOCK_FILE))
          .as("a create of a live process, maybe")
          .exists();
      assertThat(foreign.resolve("notes.txt")).exists();
      assertThat(foreign.resolve(ShardFiles.LOCK_FILE)).doesNotExist();
      assertThat(noLock).isDirectory();
      ShardFiles mine = ShardFiles.create(temp, "shard-after");
      assertThat(mine.folder()).isDirectory();
      mine.delete();
    } finally {
      owner.destroyForcibly();
    }
  }

  /** A staging folder with an unlocked lock file, changed last now or long ago. */
  private Path staging(String name, boolean old) throws IOException {
    Path folder = Files.createDirectory(temp.resolve(name));
    Files.writeString(folder.resolve(ShardFiles.LOCK_FILE), "");
    if (old) {
      Files.setLastModifiedTime(folder, FileTime.fromMillis(0));
    }
    return folder;
  }

  @Test
  void shouldKeepItsOwnLockWhenItSweepsItsShardsThroughALinkedFolder() throws Exception {
    Path real = Files.createDirectory(temp.resolve("real"));
    Path link = Files.createSymbolicLink(temp.resolve("link"), real);
    ShardFiles mine = ShardFiles.create(real, "shard-live");
    try {
      assertThat(ShardFiles.sweep(link)).isEmpty();
      Process other =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  SparkClusters.testClassPath(),
                  SweepShards.class.getName(),
                  real.toString())
              .redirectErrorStream(true)
              .start();
      String said = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(other.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(said).as("another process's sweep").isEqualTo("removed 0\n");
      assertThat(mine.folder()).isDirectory();
    } finally {
      mine.delete();
    }
  }
}
