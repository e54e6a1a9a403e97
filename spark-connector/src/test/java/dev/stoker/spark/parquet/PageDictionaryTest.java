package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * A dictionary's entries copied by id, as the file holds them: little-endian, whatever the width.
 */
class PageDictionaryTest {

  private static PageDictionary longs(long... values) throws IOException {
    ByteBuffer plain = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    for (long value : values) {
      plain.putLong(value);
    }
    return PageDictionary.of(Pages.dictionary(plain.array(), values.length), 8);
  }

  @Test
  void shouldCopyEightByteEntriesByIdAndNameAnIdBeyondTheDictionary() throws IOException {
    PageDictionary dictionary = longs(1L << 40, -5, 7);
    byte[] dst = new byte[3 + 8 * 4 + 8];
    java.util.Arrays.fill(dst, (byte) 9);

    dictionary.copy(new int[] {2, 0, 1, 2, 99}, 4, dst, 3);

    ByteBuffer written = ByteBuffer.wrap(dst).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(
            new long[] {
              written.getLong(3), written.getLong(11), written.getLong(19), written.getLong(27)
            })
        .containsExactly(7, 1L << 40, -5, 7);
    for (int i = 35; i < dst.length; i++) {
      assertThat(dst[i]).as("byte %d, past the entries asked for", i).isEqualTo((byte) 9);
    }
    for (int bad : new int[] {3, -1}) {
      assertThatThrownBy(() -> dictionary.copy(new int[] {0, bad}, 2, new byte[16], 0))
          .isInstanceOf(PageFormatException.class)
          .hasMessageContaining(
              "dictionary id " + Integer.toUnsignedString(bad) + " of a dictionary of 3");
    }
    assertThatThrownBy(() -> dictionary.copy(new int[] {0, 1}, 2, new byte[15], 0))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
