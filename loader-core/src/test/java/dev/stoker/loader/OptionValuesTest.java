package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Option values from strings, as {@link LoaderOptions#fromMap} reads them: strict, exact. */
class OptionValuesTest {

  private static void assertRejected(String option, String value, String message) {
    assertThatThrownBy(() -> LoaderOptions.fromMap(Map.of(option, value)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

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

    assertThat(options)
        .isEqualTo(
            LoaderOptions.builder()
                .batchSize(32)
                .shuffle(true)
                .seed(-7)
                .numWorkers(4)
                .pinMemory(true)
                .prefetchFactor(3)
                .persistentWorkers(true)
                .dropLast(false)
                .timeout(Duration.ofSeconds(30))
                .onBadSample(OnBadSample.SKIP)
                .maxHostBytes(512L << 20)
                .transferDepth(5)
                .name("train")
                .build());
  }

  @Test
  void shouldGiveDefaultsForAnEmptyMap() {
    assertThat(LoaderOptions.fromMap(Map.of())).isEqualTo(LoaderOptions.builder().build());
  }

  @Test
  void shouldReadTheWholeRangeOfIntsAndLongs() {
    assertThat(LoaderOptions.fromMap(Map.of("batchSize", "2147483647")).batchSize())
        .isEqualTo(Integer.MAX_VALUE);
    assertThat(LoaderOptions.fromMap(Map.of("batchSize", "+8")).batchSize()).isEqualTo(8);
    assertThat(LoaderOptions.fromMap(Map.of("seed", "-9223372036854775808")).seed())
        .isEqualTo(Long.MIN_VALUE);
    assertThat(LoaderOptions.fromMap(Map.of("seed", "0009223372036854775807")).seed())
        .isEqualTo(Long.MAX_VALUE);
  }

  @ParameterizedTest(name = "timeout={0} -> {1} ns")
  @CsvSource({
    "500ms, 500000000",
    "30s, 30000000000",
    "2m, 120000000000",
    "3min, 180000000000",
    "1h, 3600000000000",
    "1500, 1500000000",
    "0, 0",
    "250 MS, 250000000",
    "45S, 45000000000",
    "1500us, 1500000",
    "1500ns, 1500",
    "2H, 7200000000000",
    "9223372036854775807ns, 9223372036854775807",
    "9223372036854ms, 9223372036854000000"
  })
  void shouldParseDurationsWithAndWithoutUnits(String text, long nanos) {
    LoaderOptions options = LoaderOptions.fromMap(Map.of("timeout", text));
    assertThat(options.timeout()).isEqualTo(Duration.ofNanos(nanos));
    assertThat(options.timeoutNanos()).isEqualTo(nanos);
  }

  @ParameterizedTest(name = "maxHostBytes={0} -> {1}")
  @CsvSource({
    "512m, 536870912",
    "4g, 4294967296",
    "1024, 1024",
    "512k, 524288",
    "256MB, 268435456",
    "2GiB, 2147483648",
    "64 k, 65536",
    "7b, 7",
    "7 B, 7",
    "3kib, 3072",
    "1t, 1099511627776",
    "2TB, 2199023255552",
    "1 TiB, 1099511627776",
    "9223372036854775807, 9223372036854775807",
    "8388607t, 9223370937343148032",
    "0512m, 536870912"
  })
  void shouldParseSizesWithAndWithoutUnits(String text, long bytes) {
    assertThat(LoaderOptions.fromMap(Map.of("maxHostBytes", text)).maxHostBytes()).isEqualTo(bytes);
  }

  @ParameterizedTest(name = "maxHostBytes={0}")
  @CsvSource({
    "1b0",
    "bb512mbb",
    "4.5g",
    "-1k",
    "+1k",
    "1e9",
    "512 mb b",
    "512  m",
    " m",
    "m",
    "12x",
    "1kbb",
    "1 000",
    "0x10",
    "512m!",
    "١٢٣"
  })
  void shouldRejectASizeThatIsNotDigitsWithAUnit(String text) {
    assertRejected(
        "maxHostBytes",
        text,
        "maxHostBytes: '"
            + text.strip()
            + "' (expected: bytes, or digits with a binary unit k, m, g or t, e.g. 512m or 4GiB)");
  }

  @ParameterizedTest(name = "maxHostBytes={0}")
  @CsvSource({
    "99999999999g",
    "9223372036854775808",
    "8388608t",
    "8589934592g",
    "99999999999999999999999999999"
  })
  void shouldRejectASizeTooLargeForALongSayingTheLargestAllowed(String text) {
    assertRejected(
        "maxHostBytes",
        text,
        "maxHostBytes: '" + text + "' (expected: at most 9223372036854775807 bytes)");
  }

  @ParameterizedTest(name = "timeout={0}")
  @CsvSource({"soon", "1d", "1.5s", "-1s", "+5s", "5 s s", "1e3", "30sec", "5  ms", "ms"})
  void shouldRejectADurationThatIsNotDigitsWithAUnit(String text) {
    assertRejected(
        "timeout",
        text,
        "timeout: '"
            + text
            + "' (expected: milliseconds, or digits "
            + "with a unit ns, us, ms, s, m, min or h, e.g. 30s)");
  }

  @ParameterizedTest(name = "timeout={0}")
  @CsvSource({
    "9223372036855ms",
    "9223372037s",
    "153722868m",
    "2562048h",
    "9223372036854775808ns",
    "99999999999999999999999",
    "9223372036854775807h"
  })
  void shouldRejectADurationWhoseNanosecondsOverflowALong(String text) {
    assertRejected(
        "timeout",
        text,
        "timeout: '" + text + "' (expected: at most 9223372036854775807 ns, about 292 years)");
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "batchSize|abc|batchSize: 'abc' (expected: a whole number)",
        "numWorkers|1.5|numWorkers: '1.5' (expected: a whole number)",
        "seed|0x10|seed: '0x10' (expected: a whole number)",
        "seed|1e3|seed: '1e3' (expected: a whole number)",
        "seed|--1|seed: '--1' (expected: a whole number)",
        "transferDepth|١٢|transferDepth: '١٢' (expected: a whole number)",
        "prefetchFactor|\"\"|prefetchFactor: '' (expected: a whole number)",
        "batchSize|99999999999|batchSize: '99999999999' (expected: a whole number from "
            + "-2147483648 to 2147483647)",
        "batchSize|2147483648|batchSize: '2147483648' (expected: a whole number from "
            + "-2147483648 to 2147483647)",
        "numWorkers|-2147483649|numWorkers: '-2147483649' (expected: a whole number from "
            + "-2147483648 to 2147483647)",
        "seed|9223372036854775808|seed: '9223372036854775808' (expected: a whole number from "
            + "-9223372036854775808 to 9223372036854775807)",
        "shuffle|yes|shuffle: 'yes' (expected: true or false)",
        "pinMemory|1|pinMemory: '1' (expected: true or false)",
        "dropLast|truee|dropLast: 'truee' (expected: true or false)",
        "onBadSample|ignore|onBadSample: 'ignore' (expected: fail or skip)",
        "batchSize|0|batchSize: 0 (expected: > 0)",
        "numWorkers|-1|numWorkers: -1 (expected: >= 0; 0 loads in the caller's thread)",
        "maxHostBytes|0k|maxHostBytes: 0 (expected: > 0)",
        "name|\"   \"|name: '' (expected: a non-blank name)"
      })
  void shouldRejectABadValueNamingOptionAndValue(String option, String value, String message) {
    assertRejected(option, value, message);
  }

  @Test
  void shouldCheckTheRulesBetweenParsedOptions() {
    assertThatThrownBy(() -> LoaderOptions.fromMap(Map.of("prefetchFactor", "2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("prefetchFactor: 2 (expected: only with numWorkers > 0; numWorkers is 0)");
  }

  @Test
  void shouldReadANullValueAsEmpty() {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("batchSize", null);
    assertThatThrownBy(() -> LoaderOptions.fromMap(values))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batchSize: '' (expected: a whole number)");
  }
}
