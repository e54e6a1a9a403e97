package dev.stoker.loader.sampler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EpochSplitTest {

  @Test
  void shouldGiveEveryRankWholeBatchesWithDropLastAndAnEqualShareWithout() {
    assertThat(EpochSplit.rowsPerRank(1_000, 3, 64, true)).isEqualTo(320);
    assertThat(EpochSplit.rowsPerRank(1_000, 3, 64, false)).isEqualTo(334);
    assertThat(EpochSplit.batches(320, 64, true)).isEqualTo(5);
    assertThat(EpochSplit.batches(334, 64, true)).isEqualTo(5);
    assertThat(EpochSplit.batches(334, 64, false)).isEqualTo(6);
    assertThat(EpochSplit.batches(0, 64, false)).isZero();
  }

  @Test
  void shouldHoldItsRulesForAnySizes() {
    SplittableRandom random = new SplittableRandom(11);
    for (int i = 0; i < 10_000; i++) {
      long rows = random.nextLong(1L << 40);
      int world = 1 + random.nextInt(4096);
      int batch = 1 + random.nextInt(1 << 20);
      long step = (long) batch * world;
      long dropped = EpochSplit.rowsPerRank(rows, world, batch, true);
      assertThat(dropped % batch).isZero();
      assertThat(rows - dropped * world).isBetween(0L, step - 1);
      long padded = EpochSplit.rowsPerRank(rows, world, batch, false);
      assertThat(padded * world - rows).isBetween(0L, world - 1L);
      long full = rows / batch;
      assertThat(EpochSplit.batches(rows, batch, true)).isEqualTo(full);
      assertThat(EpochSplit.batches(rows, batch, false))
          .isEqualTo(rows % batch == 0 ? full : full + 1);
    }
  }

  @Test
  void shouldRefuseSizesBelowOne() {
    assertThatThrownBy(() -> EpochSplit.rowsPerRank(10, 0, 4, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("worldSize");
    assertThatThrownBy(() -> EpochSplit.batches(10, 0, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batchSize");
  }
}
