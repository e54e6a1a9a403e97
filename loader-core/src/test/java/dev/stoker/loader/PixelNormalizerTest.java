package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PixelNormalizerTest {
  private static final double[] MEAN = {0.485, 0.456, 0.406};
  private static final double[] STD = {0.229, 0.224, 0.225};
  private static final Schema SCHEMA =
      Schema.of(
          Field.of("image", DType.FLOAT32, 3, 2, 2),
          Field.of("mask", DType.FLOAT32, 2, 6),
          Field.of("raw", DType.UINT8, 3, 4));
  private static final int IMAGE = 0;
  private static final int MASK = 1;
  private static final int RAW = 2;

  private final PixelNormalizer normalizer = PixelNormalizer.of(MEAN, STD);
  private final BatchLayout layout = new BatchLayout(SCHEMA, 3);
  private HostMemory slot;
  private SampleWriter writer;

  @BeforeEach
  void openSlot() {
    slot = DirectAllocator.INSTANCE.allocate(layout.slotBytes());
    slot.zero(0, slot.size());
    writer = new SampleWriter(layout);
    writer.bind(slot, 1);
  }

  @AfterEach
  void closeSlot() {
    slot.close();
  }

  private float image(int element) {
    return slot.bytes().getFloat(layout.rowOffset(IMAGE, 1) + element * Float.BYTES);
  }

  @Test
  void shouldGiveTorchvisionsResultForEveryPixelValueOfEveryChannel() {
    for (int c = 0; c < 3; c++) {
      for (int x = 0; x < 256; x++) {
        // ToTensor then Normalize, each step rounded to float32 as torch computes it
        float scaled = (float) x / 255f;
        float expected = (scaled - (float) MEAN[c]) / (float) STD[c];
        assertThat(normalizer.value(c, x)).as("channel %d pixel %d", c, x).isEqualTo(expected);
        assertThat((double) normalizer.value(c, x))
            .isCloseTo((x / 255.0 - MEAN[c]) / STD[c], within(1e-6));
      }
    }
  }

  @Test
  void shouldNormalizeEachElementByTheChannelItBelongsTo() {
    byte[] pixels = {
      0, 1, (byte) 128, (byte) 255, 10, 20, 30, 40, (byte) 200, (byte) 201, (byte) 202, (byte) 203
    };
    writer.putNormalized(IMAGE, 0, pixels, 0, 12, normalizer);

    for (int e = 0; e < 12; e++) {
      assertThat(image(e))
          .as("element %d", e)
          .isEqualTo(normalizer.value(e / 4, Byte.toUnsignedInt(pixels[e])));
    }
    assertThat(writer.firstIncompleteField()).isEqualTo(MASK);
  }

  @Test
  void shouldWriteARangeThatCrossesChannelsFromAnOffsetInTheSource() {
    byte[] pixels = {9, 9, 50, 60, 70, 80, 90, 100, 9};
    writer.putNormalized(IMAGE, 2, pixels, 2, 6, normalizer);

    assertThat(image(0)).isZero();
    assertThat(image(1)).isZero();
    assertThat(image(2)).isEqualTo(normalizer.value(0, 50));
    assertThat(image(3)).isEqualTo(normalizer.value(0, 60));
    assertThat(image(4)).isEqualTo(normalizer.value(1, 70));
    assertThat(image(7)).isEqualTo(normalizer.value(1, 100));
    assertThat(image(8)).isZero();
    assertThat(writer.writtenElements(IMAGE)).isEqualTo(6);
    // rows 0 and 2 are untouched
    ByteBuffer bytes = slot.bytes();
    for (int row : new int[] {0, 2}) {
      for (int e = 0; e < 12; e++) {
        assertThat(bytes.getFloat(layout.rowOffset(IMAGE, row) + e * Float.BYTES)).isZero();
      }
    }
  }

  @Test
  void shouldRefuseAFieldThatIsNotFloat32() {
    assertThatThrownBy(() -> writer.putNormalized(RAW, 0, new byte[12], 0, 12, normalizer))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "field 'raw' is uint8[3,4]: putNormalized writes float32 (expected: the put "
                + "method of its dtype)");
  }

  @Test
  void shouldRefuseANormalizerWhoseChannelsAreNotTheFieldsFirstDimension() {
    assertThatThrownBy(() -> writer.putNormalized(MASK, 0, new byte[12], 0, 12, normalizer))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "field 'mask' is float32[2,6]: putNormalized with 3 channels (expected: a "
                + "normalizer with one mean and std per entry of the field's first dimension, 2)");
    assertThat(slot.bytes().getFloat(layout.rowOffset(MASK, 1))).isZero();
  }

  @Test
  void shouldRefuseMorePixelsThanTheFieldHoldsOrTheSourceHas() {
    assertThatThrownBy(() -> writer.putNormalized(IMAGE, 4, new byte[20], 0, 9, normalizer))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'image' row 1: 9 values at element 4 (expected: at most 12 = [3,2,2])");
    assertThatThrownBy(() -> writer.putNormalized(IMAGE, 0, new byte[12], 4, 12, normalizer))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage(
            "putNormalized: 12 pixels from index 4 of an array of 12 (expected: a range "
                + "inside the array)");
    assertThatThrownBy(
            () -> writer.putNormalized(IMAGE, 0, new byte[12], Integer.MAX_VALUE, 2, normalizer))
        .isInstanceOf(IndexOutOfBoundsException.class);
    for (int e = 0; e < 12; e++) {
      assertThat(image(e)).isZero();
    }
  }

  @Test
  void shouldRefuseMeansAndStdsThatCannotNormalize() {
    assertThatThrownBy(() -> PixelNormalizer.of(new double[] {0.5}, new double[] {0.2, 0.3}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "pixel normalizer: mean [0.5] and std [0.2, 0.3] (expected: one mean and one "
                + "std per channel)");
    assertThatThrownBy(() -> PixelNormalizer.of(new double[] {0.5, 0.5}, new double[] {0.2, 0}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "pixel normalizer: channel 1 has mean 0.5 and std 0.0 (expected: a finite "
                + "mean and a finite std > 0)");
    assertThatThrownBy(() -> PixelNormalizer.of(new double[] {Double.NaN}, new double[] {1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("channel 0 has mean NaN");
    assertThatThrownBy(() -> PixelNormalizer.of(null, new double[] {1}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldKeepItsOwnCopyOfTheValues() {
    double[] mean = {0.5};
    double[] std = {0.25};
    PixelNormalizer own = PixelNormalizer.of(mean, std);
    mean[0] = 100;
    std[0] = 100;
    assertThat(own.value(0, 255)).isEqualTo(2f);
    assertThat(own.mean(0)).isEqualTo(0.5);
  }
}
