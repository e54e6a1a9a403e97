package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/** Sums of consecutive ranges joined into the sum of the whole, against the JDK's CRC-32. */
class Crc32JoinTest {
  private static int crc(byte[] bytes, int from, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, from, length);
    return (int) crc.getValue();
  }

  @Test
  void shouldJoinTheSumsOfFixedChunksIntoTheSumOfTheWhole() {
    Random random = new Random(11);
    for (int chunk : new int[] {1, 3, 512, 4096}) {
      Crc32Join join = new Crc32Join(chunk);
      assertThat(join.length()).isEqualTo(chunk);
      byte[] bytes = new byte[chunk * 37 + random.nextInt(chunk)];
      random.nextBytes(bytes);
      int joined = crc(bytes, 0, Math.min(chunk, bytes.length));
      for (int at = chunk; at < bytes.length; at += chunk) {
        int length = Math.min(chunk, bytes.length - at);
        int sum = crc(bytes, at, length);
        joined = length == chunk ? join.join(joined, sum) : Crc32Join.join(joined, sum, length);
      }
      assertThat(joined).as("chunks of %d", chunk).isEqualTo(crc(bytes, 0, bytes.length));
    }
  }

  @Test
  void shouldJoinRangesOfAnyLengthTheTablesAgreeing() {
    Random random = new Random(5);
    byte[] bytes = new byte[70_000];
    random.nextBytes(bytes);
    for (int trial = 0; trial < 200; trial++) {
      int split = random.nextInt(bytes.length + 1);
      int first = crc(bytes, 0, split);
      int second = crc(bytes, split, bytes.length - split);
      int whole = crc(bytes, 0, bytes.length);
      assertThat(Crc32Join.join(first, second, bytes.length - split)).isEqualTo(whole);
      if (split < bytes.length) {
        assertThat(new Crc32Join(bytes.length - split).join(first, second)).isEqualTo(whole);
      }
    }
    // a wrong sum of either part gives another joined sum
    int first = crc(bytes, 0, 512);
    int second = crc(bytes, 512, 512);
    Crc32Join join = new Crc32Join(512);
    assertThat(join.join(first ^ 1, second)).isNotEqualTo(crc(bytes, 0, 1024));
    assertThat(join.join(first, second ^ (1 << 31))).isNotEqualTo(crc(bytes, 0, 1024));
  }

  @Test
  void shouldRefuseLengthsThatAreNot() {
    assertThatThrownBy(() -> new Crc32Join(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("length: 0");
    assertThatThrownBy(() -> Crc32Join.join(1, 2, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("length: -1");
  }
}
