package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
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
    assertThat(placement)
        .isEqualTo(Placement.of(2, 8))
        .hasSameHashCodeAs(Placement.of(2, 8))
        .isNotEqualTo(Placement.of(3, 8))
        .hasToString("rank 2 of 8");
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
    assertThat(
            Placement.fromMap(
                Map.of(
                    "batchSize",
                    "not read here",
                    "path",
                    "/data",
                    "colour",
                    "red",
                    "rank",
                    "1",
                    "worldSize",
                    "2")))
        .isEqualTo(Placement.of(1, 2));
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "rank|one|rank: 'one' (expected: a whole number)",
        "worldSize|2.0|worldSize: '2.0' (expected: a whole number)",
        "rank|2147483648|rank: '2147483648' (expected: a whole number from -2147483648 to "
            + "2147483647)",
        "worldSize|0|worldSize: 0 (expected: > 0)",
        "rank|-1|rank: -1 (expected: >= 0)",
        "rank|1|rank: 1 (expected: 0 <= rank < worldSize = 1)"
      })
  void shouldRejectABadValueNamingTheOption(String option, String value, String message) {
    assertRejected(() -> Placement.fromMap(Map.of(option, value)), message);
  }

  @Test
  void shouldRejectTheSameNameTwiceInDifferentCase() {
    assertRejected(
        () -> Placement.fromMap(Map.of("worldSize", "4", "WorldSize", "8")),
        "worldSize: given twice, as 'WorldSize' = '8' and 'worldSize' = '4' (expected: once; "
            + "option names ignore case)");
  }

  /** Placement.of(2, 3) serialized, its two ints (rank, then worldSize, at the end) replaced. */
  private static byte[] serializedWith(int rank, int worldSize) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(Placement.of(2, 3));
    }
    byte[] stream = bytes.toByteArray();
    ByteBuffer fields = ByteBuffer.wrap(stream, stream.length - 8, 8);
    assertThat(fields.getInt(stream.length - 8)).isEqualTo(2);
    assertThat(fields.getInt(stream.length - 4)).isEqualTo(3);
    fields.putInt(rank).putInt(worldSize);
    return stream;
  }

  private static Object deserialize(byte[] bytes) throws IOException, ClassNotFoundException {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      return in.readObject();
    }
  }

  @Test
  void shouldReadBackASerializedPlacementAndTheWholeDatasetAsItself() throws Exception {
    assertThat(deserialize(serializedWith(1, 3))).isEqualTo(Placement.of(1, 3));
    assertThat(deserialize(serializedWith(0, 1))).isSameAs(Placement.SINGLE);
  }

  @ParameterizedTest(name = "rank {0} of {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "5|3|Placement: rank: 5 (expected: 0 <= rank < worldSize = 3)",
        "-1|3|Placement: rank: -1 (expected: >= 0)",
        "0|0|Placement: worldSize: 0 (expected: > 0)",
        "0|-2147483648|Placement: worldSize: -2147483648 (expected: > 0)"
      })
  void shouldRefuseASerializedPlacementOutsideTheWorld(int rank, int worldSize, String message) {
    assertThatThrownBy(() -> deserialize(serializedWith(rank, worldSize)))
        .isInstanceOf(InvalidObjectException.class)
        .hasMessage(message);
  }
}
