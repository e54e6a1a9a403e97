package dev.stoker.loader.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.ArrayDataset;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Placement;
import dev.stoker.loader.Schema;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FieldStatsTest {
  private static final int SAMPLES = 96;
  private static final Schema SCHEMA =
      Schema.of(
          Field.of("image", DType.FLOAT32, 2, 3, 4),
          Field.of("pixels", DType.UINT8, 3, 5),
          Field.scalar("label", DType.INT64));

  /** Channel c of sample i is 1000 * (c + 1) plus noise; pixels are i-dependent bytes. */
  private static float[] image(int i) {
    SplittableRandom random = new SplittableRandom(i);
    float[] values = new float[24];
    for (int e = 0; e < values.length; e++) {
      values[e] = (float) (1000.0 * (e / 12 + 1) + random.nextDouble());
    }
    return values;
  }

  private static byte[] pixels(int i) {
    byte[] values = new byte[15];
    for (int e = 0; e < values.length; e++) {
      values[e] = (byte) ((i * 31 + e * 7) & 0xff);
    }
    return values;
  }

  private static ArrayDataset dataset() {
    return ArrayDataset.of(SCHEMA, SAMPLES, i -> new Object[] {image(i), pixels(i), (long) i});
  }

  @Test
  void shouldMatchATwoPassReferenceOverTheWholeDataset() {
    try (DataLoader loader =
        new DataLoader(
            dataset(), LoaderOptions.builder().batchSize(10).shuffle(true).numWorkers(2).build())) {
      ChannelStats stats = FieldStats.compute(loader, "image", 0, 1.0);
      for (int c = 0; c < 2; c++) {
        double sum = 0;
        for (int i = 0; i < SAMPLES; i++) {
          for (int e = 0; e < 12; e++) {
            sum += image(i)[c * 12 + e];
          }
        }
        double mean = sum / (SAMPLES * 12);
        double squares = 0;
        for (int i = 0; i < SAMPLES; i++) {
          for (int e = 0; e < 12; e++) {
            double d = image(i)[c * 12 + e] - mean;
            squares += d * d;
          }
        }
        assertThat(stats.count(c)).isEqualTo(SAMPLES * 12L);
        assertThat(stats.mean(c)).isCloseTo(mean, within(1e-9));
        assertThat(stats.std(c)).isCloseTo(Math.sqrt(squares / (SAMPLES * 12)), within(1e-9));
      }
    }
  }

  @Test
  void shouldMergeRanksIntoTheStatisticsOfTheWholeDataset() {
    LoaderOptions.Builder base = LoaderOptions.builder().batchSize(8).shuffle(true).dropLast(true);
    ChannelStats merged = new ChannelStats(3);
    for (int rank = 0; rank < 2; rank++) {
      try (DataLoader loader = new DataLoader(dataset(), base.build(), Placement.of(rank, 2))) {
        merged.merge(FieldStats.compute(loader, "pixels", 3, 1 / 255.0));
      }
    }
    try (DataLoader whole =
        new DataLoader(dataset(), LoaderOptions.builder().batchSize(8).build())) {
      ChannelStats single = FieldStats.compute(whole, "pixels", 0, 1 / 255.0);
      assertThat(merged.count(0)).isEqualTo(single.count(0)).isEqualTo(SAMPLES * 5L);
      for (int c = 0; c < 3; c++) {
        assertThat(merged.mean(c)).isCloseTo(single.mean(c), within(1e-12));
        assertThat(merged.std(c)).isCloseTo(single.std(c), within(1e-12));
      }
    }
  }

  @Test
  void shouldRefuseAFieldThatIsNotAnImage() {
    try (DataLoader loader = new DataLoader(dataset(), LoaderOptions.builder().build())) {
      assertThatThrownBy(() -> FieldStats.compute(loader, "label", 0, 1.0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "field 'label' is int64[] (expected: float32 or uint8 for normalization "
                  + "statistics)");
    }
  }
}
