package dev.stoker.spark.run.balance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RankSizingTest {

  @Test
  void shouldStopEveryRankAtTheSameMultipleOfBatchSizeWithDropLast() {
    RankSizing sizing = RankSizing.of(new long[] {12, 11, 11}, 4, true);
    assertThat(sizing.samples()).isEqualTo(11);
    assertThat(sizing.batchesPerEpoch()).isEqualTo(2);
    assertThat(sizing.droppedRows(0)).isEqualTo(4);
    assertThat(sizing.droppedRows(1)).isEqualTo(3);
    assertThat(sizing.droppedRows()).isEqualTo(10);
    assertThat(sizing.paddedRows()).isZero();
  }

  @Test
  void shouldPadSmallerRanksToTheLargestWithoutDropLast() {
    RankSizing sizing = RankSizing.of(new long[] {12, 11}, 4, false);
    assertThat(sizing.samples()).isEqualTo(12);
    assertThat(sizing.batchesPerEpoch()).isEqualTo(3);
    assertThat(sizing.paddedRows(1)).isEqualTo(1);
    assertThat(sizing.paddedRows()).isEqualTo(1);
    assertThat(sizing.droppedRows()).isZero();
  }

  @Test
  void shouldRefuseFewerRowsThanWorldSizeTimesBatchSizeWithDropLast() {
    assertThatThrownBy(() -> RankSizing.of(new long[] {4, 3}, 4, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "rows: 7 over worldSize 2 leave rank 1 with 3, fewer than batchSize 4 "
                + "(expected: at least worldSize x batchSize = 8 rows with dropLast, so that every "
                + "rank gets a full batch; lower batchSize or worldSize)");
  }

  @Test
  void shouldRefuseARankWithoutRowsWithoutDropLast() {
    assertThatThrownBy(() -> RankSizing.of(new long[] {1, 0}, 4, false))
        .hasMessage(
            "rows: 1 over worldSize 2 leave rank 1 with none (expected: at least one "
                + "row on every rank, 2 in all; lower worldSize)");
  }

  @Test
  void shouldDealRowsSoThatRanksDifferByAtMostOne() {
    assertThat(RankSizing.balancedRows(23, 3)).containsExactly(8, 8, 7);
    assertThat(RankSizing.balancedRows(2, 4)).containsExactly(1, 1, 0, 0);
    assertThat(RankSizing.balancedRows(0, 2)).containsExactly(0, 0);
  }
}
