package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoaderConfigTest {
  private static final LoaderOptions FULL =
      LoaderOptions.builder()
          .batchSize(16)
          .shuffle(true)
          .seed(42)
          .numWorkers(3)
          .pinMemory(true)
          .prefetchFactor(5)
          .persistentWorkers(true)
          .dropLast(true)
          .timeout(Duration.ofMillis(1500))
          .onBadSample(OnBadSample.SKIP)
          .maxHostBytes(1L << 20)
          .transferDepth(3)
          .name("train")
          .build();

  private static byte[] serialize(Object object) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(object);
    }
    return bytes.toByteArray();
  }

  private static Object deserialize(byte[] bytes) throws IOException, ClassNotFoundException {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      return in.readObject();
    }
  }

  @Test
  void shouldGiveBackTheOptionsAndPlacementItWasMadeOf() {
    LoaderConfig config = LoaderConfig.of(FULL, Placement.of(2, 4));
    assertThat(config.options()).isEqualTo(FULL);
    assertThat(config.placement()).isEqualTo(Placement.of(2, 4));
  }

  @Test
  void shouldHoldOnlyWhatDiffersFromTheDefaultsSortedByName() {
    LoaderConfig config =
        LoaderConfig.of(
            LoaderOptions.builder()
                .batchSize(32)
                .numWorkers(4)
                .timeout(Duration.ofSeconds(30))
                .build(),
            Placement.of(1, 2));
    assertThat(config.toMap())
        .containsExactly(
            Map.entry("batchSize", "32"),
            Map.entry("numWorkers", "4"),
            Map.entry("rank", "1"),
            Map.entry("timeout", "30000ms"),
            Map.entry("worldSize", "2"));
    assertThat(LoaderConfig.of(LoaderOptions.builder().build(), Placement.SINGLE).toMap())
        .isEmpty();
    assertThat(config)
        .hasToString(
            "LoaderConfig{batchSize=32, numWorkers=4, rank=1, timeout=30000ms, worldSize=2}");
  }

  @Test
  void shouldHoldEveryOptionSetAwayFromItsDefault() {
    assertThat(LoaderConfig.of(FULL, Placement.SINGLE).toMap())
        .containsExactly(
            Map.entry("batchSize", "16"),
            Map.entry("dropLast", "true"),
            Map.entry("maxHostBytes", "1048576"),
            Map.entry("name", "train"),
            Map.entry("numWorkers", "3"),
            Map.entry("onBadSample", "skip"),
            Map.entry("persistentWorkers", "true"),
            Map.entry("pinMemory", "true"),
            Map.entry("prefetchFactor", "5"),
            Map.entry("seed", "42"),
            Map.entry("shuffle", "true"),
            Map.entry("timeout", "1500ms"),
            Map.entry("transferDepth", "3"));
  }

  @Test
  void shouldRefuseChangesToItsMap() {
    LoaderConfig config = LoaderConfig.of(FULL, Placement.SINGLE);
    assertThatThrownBy(() -> config.toMap().put("batchSize", "1"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void shouldReadBothLayersFromOneMapIntoCanonicalForm() {
    LoaderConfig config =
        LoaderConfig.fromMap(
            Map.of(
                "BATCHSIZE",
                "8",
                "timeout",
                "2m",
                "RANK",
                "1",
                "worldsize",
                "3",
                "shuffle",
                "false"));
    assertThat(config.toMap())
        .containsExactly(
            Map.entry("batchSize", "8"),
            Map.entry("rank", "1"),
            Map.entry("timeout", "120000ms"),
            Map.entry("worldSize", "3"));
    assertThat(config.options())
        .isEqualTo(LoaderOptions.builder().batchSize(8).timeout(Duration.ofMinutes(2)).build());
    assertThat(config.placement()).isEqualTo(Placement.of(1, 3));
    assertThat(LoaderConfig.fromMap(config.toMap())).isEqualTo(config);
  }

  @Test
  void shouldAcceptASourcesOwnOptionNames() {
    LoaderConfig config =
        LoaderConfig.fromMap(Map.of("epoch", "4", "batchSize", "2"), List.of("epoch"));
    assertThat(config.toMap()).containsExactly(Map.entry("batchSize", "2"));
  }

  /** As its Javadoc says: Spark's own keys are not taken unless the caller names them. */
  @Test
  void shouldRefuseSparksPathUnlessTheCallerAcceptsIt() {
    assertThatThrownBy(() -> LoaderConfig.fromMap(Map.of("path", "/data", "batchSize", "2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'path'");
    assertThat(
            LoaderConfig.fromMap(Map.of("path", "/data", "batchSize", "2"), List.of("path"))
                .toMap())
        .containsExactly(Map.entry("batchSize", "2"));
  }

  @Test
  void shouldValidateBothLayersWithTheirOwnMessages() {
    assertThatThrownBy(() -> LoaderConfig.fromMap(Map.of("batch_size", "8")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("option: 'batch_size' (expected: a known option; did you mean 'batchSize'?)");
    assertThatThrownBy(() -> LoaderConfig.fromMap(Map.of("rank", "2", "worldSize", "2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rank: 2 (expected: 0 <= rank < worldSize = 2)");
    assertThatThrownBy(() -> LoaderConfig.fromMap(Map.of("rank", "1", "RANK", "2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "rank: given twice, as 'RANK' = '2' and 'rank' = '1' (expected: once; "
                + "option names ignore case)");
    assertThatThrownBy(() -> LoaderConfig.fromMap(Map.of("maxHostBytes", "1b0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxHostBytes: '1b0' (expected: bytes");
  }

  @Test
  void shouldBeEqualExactlyWhenOptionsAndPlacementAre() {
    LoaderConfig config = LoaderConfig.of(FULL, Placement.of(1, 2));
    assertThat(config)
        .isEqualTo(LoaderConfig.of(FULL.toBuilder().build(), Placement.of(1, 2)))
        .hasSameHashCodeAs(LoaderConfig.of(FULL.toBuilder().build(), Placement.of(1, 2)))
        .isNotEqualTo(LoaderConfig.of(FULL, Placement.of(0, 2)))
        .isNotEqualTo(LoaderConfig.of(FULL.toBuilder().seed(43).build(), Placement.of(1, 2)));
  }

  @Test
  void shouldSurviveJavaSerialization() throws Exception {
    LoaderConfig config =
        LoaderConfig.of(
            FULL.toBuilder().timeout(Duration.ofNanos(1500)).build(), Placement.of(3, 4));

    Object copy = deserialize(serialize(config));

    assertThat(copy).isInstanceOf(LoaderConfig.class).isEqualTo(config);
    LoaderConfig read = (LoaderConfig) copy;
    assertThat(read.options()).isEqualTo(config.options());
    assertThat(read.options().timeoutNanos()).isEqualTo(1500);
    assertThat(read.placement()).isEqualTo(Placement.of(3, 4));
    assertThat(read.toMap()).isEqualTo(config.toMap());
  }

  @Test
  void shouldSerializeTheDefaultsAsAnEmptyMap() throws Exception {
    LoaderConfig config = LoaderConfig.of(LoaderOptions.builder().build(), Placement.SINGLE);
    LoaderConfig read = (LoaderConfig) deserialize(serialize(config));
    assertThat(read.options()).isEqualTo(LoaderOptions.builder().build());
    assertThat(read.placement()).isSameAs(Placement.SINGLE);
  }

  @Test
  void shouldRefuseAStreamWhoseValuesAreNoLongerValid() throws Exception {
    byte[] bytes =
        serialize(LoaderConfig.of(LoaderOptions.builder().batchSize(7).build(), Placement.SINGLE));
    // the serialized map holds "batchSize" -> "7"; change the value to "0"
    byte[] tampered =
        replaceOnce(
            bytes,
            "t\u0000\u00017".getBytes("ISO-8859-1"),
            "t\u0000\u00010".getBytes("ISO-8859-1"));

    assertThatThrownBy(() -> deserialize(tampered))
        .isInstanceOf(InvalidObjectException.class)
        .hasMessage("LoaderConfig: batchSize: 0 (expected: > 0)");
  }

  @Test
  void shouldLeaveTheOptionsThemselvesOutOfJavaSerialization() {
    assertThatThrownBy(() -> serialize(LoaderOptions.builder().build()))
        .isInstanceOf(NotSerializableException.class);
  }

  private static byte[] replaceOnce(byte[] bytes, byte[] from, byte[] to) {
    int found = -1;
    for (int i = 0; i + from.length <= bytes.length; i++) {
      boolean match = true;
      for (int j = 0; j < from.length && match; j++) {
        match = bytes[i + j] == from[j];
      }
      if (match) {
        assertThat(found).as("'%s' once in the stream", new String(from)).isEqualTo(-1);
        found = i;
      }
    }
    assertThat(found).as("'%s' in the stream", new String(from)).isNotNegative();
    byte[] copy = bytes.clone();
    System.arraycopy(to, 0, copy, found, to.length);
    return copy;
  }
}
