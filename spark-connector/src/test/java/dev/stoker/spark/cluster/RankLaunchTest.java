package dev.stoker.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RankLaunchTest {

  @Test
  void shouldRefuseAnAttemptThatStartedFewerRanksThanTheStageHas() {
    assertThat(RankLaunch.refusal(1, 2, 1, 1))
        .contains("rank 1 of 2 (stage attempt 1)")
        .contains("with 1 of its 2 ranks")
        .contains("failing it so that Spark runs every rank again");
    assertThat(RankLaunch.refusal(5, 8, 7, 3)).contains("with 5 of its 8 ranks");
  }

  @Test
  void shouldLetAnAttemptWithEveryRankRun() {
    assertThat(RankLaunch.refusal(2, 2, 0, 0)).isNull();
    assertThat(RankLaunch.refusal(1, 1, 0, 2)).isNull();
  }
}
