package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LoaderOptionsTest {

  private static void assertRejected(ThrowingCallable call, String message) {
    assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  // --- builder: each bad value, with its exact message ---

  @Test
  void shouldRejectZeroBatchSize() {
    assertRejected(() -> LoaderOptions.builder().batchSize(0), "batchSize: 0 (expected: > 0)");
  }

  @Test
  void shouldRejectNegativeNumWorkers() {
    assertRejected(() -> LoaderOptions.builder().numWorkers(-1),
        "numWorkers: -1 (expected: >= 0; 0 loads in the caller's thread)");
  }

  @Test
  void shouldRejectZeroPrefetchFactor() {
    assertRejected(() -> LoaderOptions.builder().prefetchFactor(0),
        "prefetchFactor: 0 (expected: > 0)");
  }

  @Test
  void shouldRejectPrefetchFactorWithoutWorkers() {
    assertRejected(() -> LoaderOptions.builder().prefetchFactor(4).build(),
        "prefetchFactor: 4 (expected: only with numWorkers > 0; numWorkers is 0)");
  }

  @Test
  void shouldRejectPersistentWorkersWithoutWorkers() {
    assertRejected(() -> LoaderOptions.builder().persistentWorkers(true).build(),
        "persistentWorkers: true (expected: only with numWorkers > 0; numWorkers is 0)");
  }

  @Test
  void shouldRejectNegativeTimeout() {
    assertRejected(() -> LoaderOptions.builder().timeout(Duration.ofMillis(-5)),
        "timeout: -5 ms (expected: >= 0; 0 waits forever)");
  }

  @Test
  void shouldRejectZeroMaxHostBytes() {
    assertRejected(() -> LoaderOptions.builder().maxHostBytes(0),
        "maxHostBytes: 0 (expected: > 0)");
  }

  @Test
  void shouldRejectZeroTransferDepth() {
    assertRejected(() -> LoaderOptions.builder().transferDepth(0),
        "transferDepth: 0 (expected: > 0)");
  }

  @Test
  void shouldRejectBlankName() {
    assertRejected(() -> LoaderOptions.builder().name("  "),
        "name: '  ' (expected: a non-blank name)");
  }

  // --- defaults ---

  @Test
  void shouldDefaultToPyTorchsValues() {
    LoaderOptions options = LoaderOptions.builder().build();
    assertThat(options.batchSize()).isEqualTo(1);
    assertThat(options.shuffle()).isFalse();
    assertThat(options.numWorkers()).isZero();
    assertThat(options.prefetchFactor()).isEqualTo(2);
    assertThat(options.persistentWorkers()).isFalse();
    assertThat(options.dropLast()).isFalse();
    assertThat(options.timeout()).isEqualTo(Duration.ZERO);
    assertThat(options.pinMemory()).isFalse();
    assertThat(options.onBadSample()).isEqualTo(OnBadSample.FAIL);
    assertThat(options.maxHostBytes()).isEqualTo(4L << 30);
    assertThat(options.transferDepth()).isEqualTo(2);
    assertThat(options.name()).isNull();
    assertThat(options.prefetchWindow()).isEqualTo(1);
  }

  @Test
  void shouldMakeThePrefetchWindowWorkersTimesPrefetchFactor() {
    LoaderOptions options = LoaderOptions.builder().numWorkers(3).prefetchFactor(4).build();
    assertThat(options.prefetchWindow()).isEqualTo(12);
  }

  // --- fromMap ---

  @Test
  void shouldParseEveryOptionFromStrings() {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("batchSize", "32");
    values.put("shuffle", "true");
    values.put("seed", "-7");
    values.put("numWorkers", "4");
    values.put("pinMemory", "TRUE");
    values.put("prefetchFactor", "3");
    values.put("persistentWorkers", "true");
    values.put("dropLast", "False");
    values.put("timeout", "30s");
    values.put("onBadSample", "Skip");
    values.put("maxHostBytes", "512m");
    values.put("transferDepth", "5");
    values.put("name", " train ");
    assertThat(values.keySet()).containsExactlyElementsOf(LoaderOptions.NAMES);

    LoaderOptions options = LoaderOptions.fromMap(values);

    assertThat(options).isEqualTo(LoaderOptions.builder().batchSize(32).shuffle(true).seed(-7)
        .numWorkers(4).pinMemory(true).prefetchFactor(3).persistentWorkers(true).dropLast(false)
        .timeout(Duration.ofSeconds(30)).onBadSample(OnBadSample.SKIP)
        .maxHostBytes(512L << 20).transferDepth(5).name("train").build());
  }

  @Test
  void shouldMatchOptionNamesIgnoringCase() {
    LoaderOptions options = LoaderOptions.fromMap(
        Map.of("BATCHSIZE", "8", "numworkers", "2", "PrefetchFactor", "1", "onbadsample", "skip"));
    assertThat(options.batchSize()).isEqualTo(8);
    assertThat(options.numWorkers()).isEqualTo(2);
    assertThat(options.prefetchFactor()).isEqualTo(1);
    assertThat(options.onBadSample()).isEqualTo(OnBadSample.SKIP);
  }

  @Test
  void shouldGiveDefaultsForAnEmptyMap() {
    assertThat(LoaderOptions.fromMap(Map.of())).isEqualTo(LoaderOptions.builder().build());
  }

  @ParameterizedTest(name = "timeout={0} -> {1} ms")
  @CsvSource({"500ms, 500", "30s, 30000", "2m, 120000", "1500, 1500", "0, 0", "250 MS, 250",
      "45S, 45000"})
  void shouldParseDurationsWithAndWithoutUnits(String text, long millis) {
    assertThat(LoaderOptions.fromMap(Map.of("timeout", text)).timeout())
        .isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest(name = "maxHostBytes={0} -> {1}")
  @CsvSource({"512m, 536870912", "4g, 4294967296", "1024, 1024", "512k, 524288",
      "256MB, 268435456", "2GiB, 2147483648", "64 k, 65536"})
  void shouldParseSizesWithAndWithoutUnits(String text, long bytes) {
    assertThat(LoaderOptions.fromMap(Map.of("maxHostBytes", text)).maxHostBytes())
        .isEqualTo(bytes);
  }

  @Test
  void shouldRejectAnUnknownOptionListingTheKnownOnes() {
    assertRejected(() -> LoaderOptions.fromMap(Map.of("batch_size", "4")),
        "option: 'batch_size' (expected one of: batchSize, shuffle, seed, numWorkers, pinMemory, "
            + "prefetchFactor, persistentWorkers, dropLast, timeout, "
            + "onBadSample, maxHostBytes, transferDepth, name)");
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "batchSize|abc|batchSize: 'abc' (expected: a whole number)",
      "numWorkers|1.5|numWorkers: '1.5' (expected: a whole number)",
      "seed|0x10|seed: '0x10' (expected: a whole number)",
      "prefetchFactor|\"\"|prefetchFactor: '' (expected: a whole number)",
      "batchSize|99999999999|batchSize: '99999999999' (expected: a whole number)",
      "shuffle|yes|shuffle: 'yes' (expected: true or false)",
      "pinMemory|1|pinMemory: '1' (expected: true or false)",
      "onBadSample|ignore|onBadSample: 'ignore' (expected: fail or skip)",
      "timeout|soon|timeout: 'soon' (expected: milliseconds, or a number with ms, s or m, e.g. 30s)",
      "timeout|1h|timeout: '1h' (expected: milliseconds, or a number with ms, s or m, e.g. 30s)",
      "maxHostBytes|lots|maxHostBytes: 'lots' (expected: bytes, or a number with k, m or g, e.g. 512m)",
      "maxHostBytes|99999999999g|maxHostBytes: '99999999999g' (expected: bytes, or a number with k, m or g, e.g. 512m)",
      "batchSize|0|batchSize: 0 (expected: > 0)",
      "timeout|-1s|timeout: -1000 ms (expected: >= 0; 0 waits forever)",
      "maxHostBytes|-4k|maxHostBytes: -4096 (expected: > 0)",
      "name|\"   \"|name: '' (expected: a non-blank name)"})
  void shouldRejectABadValueNamingOptionAndValue(String option, String value, String message) {
    assertRejected(() -> LoaderOptions.fromMap(Map.of(option, value)), message);
  }

  @Test
  void shouldCheckTheRulesBetweenParsedOptions() {
    assertRejected(() -> LoaderOptions.fromMap(Map.of("prefetchFactor", "2")),
        "prefetchFactor: 2 (expected: only with numWorkers > 0; numWorkers is 0)");
  }

  // --- copies ---

  @Test
  void shouldRebuildAnEqualCopyWithToBuilder() {
    LoaderOptions full = LoaderOptions.builder().batchSize(16).shuffle(true).seed(42)
        .numWorkers(3).pinMemory(true).prefetchFactor(5).persistentWorkers(true).dropLast(true)
        .timeout(Duration.ofMillis(1500)).onBadSample(OnBadSample.SKIP)
        .maxHostBytes(1L << 20).transferDepth(3).name("copy").build();
    LoaderOptions defaults = LoaderOptions.builder().build();

    assertThat(full.toBuilder().build()).isEqualTo(full).hasSameHashCodeAs(full);
    assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
    assertThat(full.toBuilder().batchSize(8).build()).isNotEqualTo(full);
  }

  @Test
  void shouldSurviveJavaSerialization() throws Exception {
    LoaderOptions options = LoaderOptions.builder().batchSize(16).shuffle(true).seed(42)
        .numWorkers(2).prefetchFactor(3).timeout(Duration.ofSeconds(9))
        .onBadSample(OnBadSample.SKIP).maxHostBytes(123_456).name("serial").build();

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(options);
    }
    Object copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = in.readObject();
    }

    assertThat(copy).isInstanceOf(LoaderOptions.class).isEqualTo(options);
    assertThat(((LoaderOptions) copy).timeout()).isEqualTo(Duration.ofSeconds(9));
  }
}
