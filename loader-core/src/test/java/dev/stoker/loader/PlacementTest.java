package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PlacementTest {

  private static void assertRejected(ThrowingCallable call, String message) {
    assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void shouldHoldRankAndWorldSize() {
    Placement placement = Placement.of(2, 8);
    assertThat(placement.rank()).isEqualTo(2);
    assertThat(placement.worldSize()).isEqualTo(8);
    assertThat(placement).isEqualTo(Placement.of(2, 8)).hasSameHashCodeAs(Placement.of(2, 8))
        .isNotEqualTo(Placement.of(3, 8)).hasToString("rank 2 of 8");
    assertThat(Placement.of(0, 1)).isSameAs(Placement.SINGLE);
  }

  @Test
  void shouldRejectAPlacementOutsideTheWorld() {
    assertRejected(() -> Placement.of(0, 0), "worldSize: 0 (expected: > 0)");
    assertRejected(() -> Placement.of(-1, 2), "rank: -1 (expected: >= 0)");
    assertRejected(() -> Placement.of(2, 2), "rank: 2 (expected: 0 <= rank < worldSize = 2)");
  }

  @Test
  void shouldReadRankAndWorldSizeIgnoringCase() {
    assertThat(Placement.fromMap(Map.of("rank", "3", "worldSize", "4")))
        .isEqualTo(Placement.of(3, 4));
    assertThat(Placement.fromMap(Map.of("RANK", " 1 ", "worldsize", "2")))
        .isEqualTo(Placement.of(1, 2));
  }

  @Test
  void shouldDefaultToTheWholeDataset() {
    assertThat(Placement.fromMap(Map.of())).isSameAs(Placement.SINGLE);
    assertThat(Placement.fromMap(Map.of("worldSize", "3"))).isEqualTo(Placement.of(0, 3));
  }

  @Test
  void shouldIgnoreEveryOtherName() {
    assertThat(Placement.fromMap(Map.of("batchSize", "not read here", "path", "/data",
        "colour", "red", "rank", "1", "worldSize", "2"))).isEqualTo(Placement.of(1, 2));
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
      "rank|one|rank: 'one' (expected: a whole number)",
      "worldSize|2.0|worldSize: '2.0' (expected: a whole number)",
      "rank|2147483648|rank: '2147483648' (expected: a whole number from -2147483648 to "
          + "2147483647)",
      "worldSize|0|worldSize: 0 (expected: > 0)",
      "rank|-1|rank: -1 (expected: >= 0)",
      "rank|1|rank: 1 (expected: 0 <= rank < worldSize = 1)"})
  void shouldRejectABadValueNamingTheOption(String option, String value, String message) {
    assertRejected(() -> Placement.fromMap(Map.of(option, value)), message);
  }

  @Test
  void shouldRejectTheSameNameTwiceInDifferentCase() {
    assertRejected(() -> Placement.fromMap(Map.of("worldSize", "4", "WorldSize", "8")),
        "worldSize: given twice, as 'WorldSize' = '8' and 'worldSize' = '4' (expected: once; "
            + "option names ignore case)");
  }
}
