package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Local files read directly, checked against the checksum files Hadoop writes beside them. */
class LocalFileBytesTest {
  private static final int LENGTH = 5000;

  @TempDir java.nio.file.Path folder;

  private final Configuration conf = new Configuration();
  private final byte[] written = new byte[LENGTH];

  /** A file written through Hadoop's local file system, which writes its checksum file. */
  private Path write() throws IOException {
    new Random(7).nextBytes(written);
    Path path = new Path(folder.resolve("data.bin").toUri());
    try (FSDataOutputStream out = FileSystem.getLocal(conf).create(path)) {
      out.write(written);
    }
    assertThat(folder.resolve(".data.bin.crc")).exists();
    return path;
  }

  @Test
  void shouldReadWholeChunksAndTheTailAsWritten() throws IOException {
    Path path = write();
    try (FileBytes bytes = LocalFileBytes.open(path, conf)) {
      assertThat(bytes.alignment()).isEqualTo(512);
      assertThat(bytes.verifiesEveryByte()).isTrue();
      assertThat(bytes.length()).isEqualTo(LENGTH);
      byte[] all = new byte[LENGTH + 3];
      bytes.readFully(0, all, 3, LENGTH);
      assertThat(Arrays.copyOfRange(all, 3, LENGTH + 3)).isEqualTo(written);
      byte[] tail = new byte[LENGTH - 4608];
      bytes.readFully(4608, tail, 0, tail.length);
      assertThat(tail).isEqualTo(Arrays.copyOfRange(written, 4608, LENGTH));
      assertThatThrownBy(() -> bytes.readFully(100, all, 0, 512))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not whole checksum chunks of 512");
    }
  }

  @Test
  void shouldNameTheBytesThatDoNotMatchTheirChecksum() throws IOException {
    Path path = write();
    try (RandomAccessFile file = new RandomAccessFile(folder.resolve("data.bin").toFile(), "rw")) {
      file.seek(1500);
      file.write(written[1500] ^ 1);
    }
    try (FileBytes bytes = LocalFileBytes.open(path, conf)) {
      byte[] first = new byte[1024];
      bytes.readFully(0, first, 0, first.length);
      assertThat(first).isEqualTo(Arrays.copyOf(written, 1024));
      assertThatThrownBy(() -> bytes.readFully(1024, new byte[1024], 0, 1024))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("bytes 1024 to 1536 do not match their checksum")
          .hasMessageContaining(".data.bin.crc")
          .hasMessageContaining("restore or rewrite it");
    }
  }

  @Test
  void shouldNameTheDamagedChunkOfALongReadEvenInTheShortLastOne() throws IOException {
    Path path = write();
    for (int damaged : new int[] {0, 2600, LENGTH - 1}) {
      try (RandomAccessFile file =
          new RandomAccessFile(folder.resolve("data.bin").toFile(), "rw")) {
        file.seek(damaged);
        file.write(written[damaged] ^ 0x40);
      }
      long from = damaged / 512 * 512;
      try (FileBytes bytes = LocalFileBytes.open(path, conf)) {
        assertThatThrownBy(() -> bytes.readFully(0, new byte[LENGTH], 0, LENGTH))
            .isInstanceOf(IOException.class)
            .hasMessageContaining(
                "bytes " + from + " to " + Math.min(from + 512, LENGTH) + " do not match");
      }
      try (RandomAccessFile file =
          new RandomAccessFile(folder.resolve("data.bin").toFile(), "rw")) {
        file.seek(damaged);
        file.write(written[damaged]);
      }
    }
  }

  @Test
  void shouldReadAFileWithoutAChecksumFileUnverifiedAndRefuseAChecksumFileOfAnotherLength()
      throws IOException {
    Path path = write();
    java.nio.file.Path sums = folder.resolve(".data.bin.crc");
    byte[] sumBytes = Files.readAllBytes(sums);
    Files.delete(sums);
    try (FileBytes bytes = LocalFileBytes.open(path, conf)) {
      assertThat(bytes.alignment()).isEqualTo(1);
      assertThat(bytes.verifiesEveryByte()).isFalse();
      byte[] some = new byte[7];
      bytes.readFully(3, some, 0, 7);
      assertThat(some).isEqualTo(Arrays.copyOfRange(written, 3, 10));
    }
    Files.write(sums, Arrays.copyOf(sumBytes, sumBytes.length - 4));
    assertThatThrownBy(() -> LocalFileBytes.open(path, conf))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("does not hold the checksums of the 5000 bytes of");
  }

  @Test
  void shouldLeaveOtherFileSystemsToTheirStreams() throws IOException {
    Configuration raw = new Configuration();
    raw.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    raw.setBoolean("fs.file.impl.disable.cache", true);
    assertThat(LocalFileBytes.open(write(), raw)).isNull();
  }
}
