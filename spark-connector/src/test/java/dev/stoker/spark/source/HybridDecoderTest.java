package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The RLE / bit-packing hybrid read run by run gives what Parquet's encoder wrote. */
class HybridDecoderTest {

  private static List<Integer> decode(byte[] encoded, int bitWidth, int count, boolean skipRuns) {
    HybridDecoder decoder = new HybridDecoder(ByteBuffer.wrap(encoded), bitWidth);
    List<Integer> values = new ArrayList<>();
    while (values.size() < count) {
      int available = Math.min(decoder.available(), count - values.size());
      assertThat(available).isPositive();
      if (decoder.rle() && skipRuns) {
        for (int i = 0; i < available; i++) {
          values.add(decoder.value());
        }
        decoder.skip(available);
      } else {
        for (int i = 0; i < available; i++) {
          values.add(decoder.next());
        }
      }
    }
    return values;
  }

  @Test
  void shouldReadRunsAndPackedValuesOfEveryWidth() {
    Random random = new Random(3);
    for (int bitWidth = 1; bitWidth <= 20; bitWidth++) {
      int[] values = new int[2000];
      for (int i = 0; i < values.length; ) {
        int run = random.nextBoolean() ? 1 + random.nextInt(40) : 1;
        int value = random.nextInt(1 << bitWidth);
        for (int j = 0; j < run && i < values.length; j++) {
          values[i++] = value;
        }
      }
      byte[] encoded = Pages.hybrid(bitWidth, values);
      List<Integer> expected = new ArrayList<>();
      for (int value : values) {
        expected.add(value);
      }

      assertThat(decode(encoded, bitWidth, values.length, true)).isEqualTo(expected);
      assertThat(decode(encoded, bitWidth, values.length, false)).isEqualTo(expected);
    }
  }

  @Test
  void shouldTakeALongRunInOneStep() {
    int[] levels = new int[10_000];
    java.util.Arrays.fill(levels, 3);
    HybridDecoder decoder = new HybridDecoder(ByteBuffer.wrap(Pages.hybrid(2, levels)), 2);

    int available = decoder.available();

    assertThat(decoder.rle()).isTrue();
    assertThat(decoder.value()).isEqualTo(3);
    assertThat(available).isGreaterThanOrEqualTo(9_990);
  }
}
