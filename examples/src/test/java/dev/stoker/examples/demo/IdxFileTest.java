package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdxFileTest {
  @TempDir Path dir;

  private static byte[] idx(int magic, int[] shape, int values) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(magic);
      for (int d : shape) {
        out.writeInt(d);
      }
      for (int i = 0; i < values; i++) {
        out.writeByte(i);
      }
    }
    return bytes.toByteArray();
  }

  private Path write(String name, byte[] content, boolean gzip) throws IOException {
    Path file = dir.resolve(name);
    try (OutputStream out =
        gzip ? new GZIPOutputStream(Files.newOutputStream(file)) : Files.newOutputStream(file)) {
      out.write(content);
    }
    return file;
  }

  @Test
  void shouldReadImagesGzippedOrNot() throws IOException {
    byte[] content = idx(0x00000803, new int[] {2, 3, 4}, 24);
    for (boolean gzip : new boolean[] {true, false}) {
      IdxFile file = IdxFile.read(write(gzip ? "i.gz" : "i", content, gzip));
      assertThat(file.shape()).containsExactly(2, 3, 4);
      assertThat(file.count()).isEqualTo(2);
      assertThat(file.itemSize()).isEqualTo(12);
      assertThat(file.data()).hasSize(24).startsWith(0, 1, 2).endsWith(23);
    }
  }

  @Test
  void shouldRefuseAFileThatIsNotIdxNamingIt() throws IOException {
    Path file = write("bad", idx(0x00000d03, new int[] {1, 1, 1}, 1), false);
    assertThatThrownBy(() -> IdxFile.read(file))
        .isInstanceOf(IOException.class)
        .hasMessage(
            file
                + ": magic number 0x00000d03 (expected: an IDX file of unsigned bytes "
                + "with 1 to 3 dimensions, 0x0000080n)");
  }

  @Test
  void shouldRefuseATruncatedFile() throws IOException {
    Path file = write("short.gz", idx(0x00000801, new int[] {10}, 7), true);
    assertThatThrownBy(() -> IdxFile.read(file))
        .isInstanceOf(IOException.class)
        .hasMessage(file + ": ends before its 10 values (truncated?)");
  }
}
