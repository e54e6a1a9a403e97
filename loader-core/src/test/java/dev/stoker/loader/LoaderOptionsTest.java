package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
    assertRejected(
        () -> LoaderOptions.builder().numWorkers(-1),
        "numWorkers: -1 (expected: >= 0; 0 loads in the caller's thread)");
  }

  @Test
  void shouldRejectZeroPrefetchFactor() {
    assertRejected(
        () -> LoaderOptions.builder().prefetchFactor(0), "prefetchFactor: 0 (expected: > 0)");
  }

  @Test
  void shouldRejectPrefetchFactorWithoutWorkers() {
    assertRejected(
        () -> LoaderOptions.builder().prefetchFactor(4).build(),
        "prefetchFactor: 4 (expected: only with numWorkers > 0; numWorkers is 0)");
  }

  @Test
  void shouldRejectPersistentWorkersWithoutWorkers() {
    assertRejected(
        () -> LoaderOptions.builder().persistentWorkers(true).build(),
        "persistentWorkers: true (expected: only with numWorkers > 0; numWorkers is 0)");
  }

  @Test
  void shouldRejectNegativeTimeout() {
    assertRejected(
        () -> LoaderOptions.builder().timeout(Duration.ofMillis(-5)),
        "timeout: -5 ms (expected: >= 0; 0 waits forever)");
  }

  @Test
  void shouldRejectANegativeTimeoutTooLongForMillisecondsWithoutOverflowing() {
    assertRejected(
        () -> LoaderOptions.builder().timeout(Duration.ofSeconds(Long.MIN_VALUE)),
        "timeout: -9223372036854775808 s (expected: >= 0; 0 waits forever)");
    assertRejected(
        () -> LoaderOptions.builder().timeout(Duration.ofNanos(-1500)),
        "timeout: -1500 ns (expected: >= 0; 0 waits forever)");
  }

  @Test
  void shouldRejectATimeoutWhoseNanosecondsDoNotFitALong() {
    assertRejected(
        () -> LoaderOptions.builder().timeout(Duration.ofSeconds(Long.MAX_VALUE)),
        "timeout: 9223372036854775807 s (expected: at most 9223372036854775807 ns, "
            + "about 292 years; 0 waits forever)");
    Duration justOver = Duration.ofNanos(Long.MAX_VALUE).plusNanos(1);
    assertRejected(
        () -> LoaderOptions.builder().timeout(justOver),
        "timeout: 9223372036.854775808 s (expected: at most 9223372036854775807 ns, "
            + "about 292 years; 0 waits forever)");
  }

  @Test
  void shouldGiveTheTimeoutInNanosecondsUpToTheLargestAllowed() {
    assertThat(LoaderOptions.builder().build().timeoutNanos()).isZero();
    assertThat(LoaderOptions.builder().timeout(Duration.ofSeconds(30)).build().timeoutNanos())
        .isEqualTo(30_000_000_000L);
    LoaderOptions longest =
        LoaderOptions.builder().timeout(Duration.ofNanos(Long.MAX_VALUE)).build();
    assertThat(longest.timeoutNanos()).isEqualTo(Long.MAX_VALUE);
    assertThat(longest.timeout()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
  }

  @Test
  void shouldRejectZeroMaxHostBytes() {
    assertRejected(
        () -> LoaderOptions.builder().maxHostBytes(0), "maxHostBytes: 0 (expected: > 0)");
  }

  @Test
  void shouldRejectZeroTransferDepth() {
    assertRejected(
        () -> LoaderOptions.builder().transferDepth(0), "transferDepth: 0 (expected: > 0)");
  }

  @Test
  void shouldRejectBlankName() {
    assertRejected(
        () -> LoaderOptions.builder().name("  "), "name: '  ' (expected: a non-blank name)");
  }

  @Test
  void shouldStripTheNamesSurroundingWhitespace() {
    assertThat(LoaderOptions.builder().name(" train ").build().name()).isEqualTo("train");
    assertThat(LoaderOptions.builder().name("a b").build().name()).isEqualTo("a b");
  }

  // --- batches in flight: numWorkers x prefetchFactor must fit an int ---

  @Test
  void shouldRejectAPrefetchWindowThatOverflowsAnInt() {
    assertRejected(
        () -> LoaderOptions.builder().numWorkers(2).prefetchFactor(Integer.MAX_VALUE).build(),
        "prefetchFactor: 2147483647 with numWorkers=2 makes 4294967294 batches in flight "
            + "(expected: numWorkers x prefetchFactor <= 2147483647)");
    assertRejected(
        () -> LoaderOptions.builder().numWorkers(1024).prefetchFactor(2_097_152).build(),
        "prefetchFactor: 2097152 with numWorkers=1024 makes 2147483648 batches in flight "
            + "(expected: numWorkers x prefetchFactor <= 2147483647)");
  }

  // --- numWorkers has an upper bound ---

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {1025, 65_536, Integer.MAX_VALUE})
  void shouldRefuseAbsurdlyManyWorkersNamingTheOption(int workers) {
    String message =
        "numWorkers: "
            + workers
            + " (expected: <= 1024; a few per core is plenty, "
            + "more threads only wait for each other)";
    assertRejected(() -> LoaderOptions.builder().numWorkers(workers), message);
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("numWorkers", String.valueOf(workers))), message);
  }

  @Test
  void shouldTakeTheMostWorkersAllowed() {
    assertThat(
            LoaderOptions.builder().numWorkers(LoaderOptions.MAX_WORKERS).build().prefetchWindow())
        .isEqualTo(2048);
  }

  @Test
  void shouldAcceptALargePrefetchFactorWhoseWindowFitsAnInt() {
    assertThat(
            LoaderOptions.builder().numWorkers(1).prefetchFactor(1 << 30).build().prefetchWindow())
        .isEqualTo(1 << 30);
    assertThat(
            LoaderOptions.builder()
                .numWorkers(1)
                .prefetchFactor(Integer.MAX_VALUE)
                .build()
                .prefetchWindow())
        .isEqualTo(Integer.MAX_VALUE);
    assertThat(
            LoaderOptions.builder()
                .numWorkers(1024)
                .prefetchFactor(2_097_151)
                .build()
                .prefetchWindow())
        .isEqualTo(2_147_482_624);
  }

  @Test
  void shouldRejectAPrefetchWindowThatOverflowsAnIntFromStrings() {
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("numWorkers", "2", "prefetchFactor", "2147483647")),
        "prefetchFactor: 2147483647 with numWorkers=2 makes 4294967294 batches in flight "
            + "(expected: numWorkers x prefetchFactor <= 2147483647)");
    assertThat(
            LoaderOptions.fromMap(Map.of("numWorkers", "1", "prefetchFactor", "1073741824"))
                .prefetchWindow())
        .isEqualTo(1 << 30);
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

  // --- copies ---

  @Test
  void shouldRebuildAnEqualCopyWithToBuilder() {
    LoaderOptions full =
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
            .name("copy")
            .build();
    LoaderOptions defaults = LoaderOptions.builder().build();

    assertThat(full.toBuilder().build()).isEqualTo(full).hasSameHashCodeAs(full);
    assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
    assertThat(full.toBuilder().batchSize(8).build()).isNotEqualTo(full);
  }

  @Test
  void shouldTellTimeoutsApartBelowAMillisecond() {
    LoaderOptions micro = LoaderOptions.builder().timeout(Duration.ofNanos(1500)).build();
    assertThat(micro).isNotEqualTo(LoaderOptions.builder().build());
    assertThat(micro.asMap()).containsEntry("timeout", "1500ns");
    assertThat(micro.toBuilder().build()).isEqualTo(micro);
  }

  @Test
  void shouldListTheOptionsInDocumentationOrder() {
    LoaderOptions options = LoaderOptions.builder().timeout(Duration.ofSeconds(30)).build();
    assertThat(options.asMap().keySet()).containsExactlyElementsOf(LoaderOptions.NAMES);
    assertThat(options.asMap()).containsEntry("timeout", "30000ms").containsEntry("name", null);
    assertThat(LoaderOptions.NAMES).isSameAs(OptionNames.LOADER);
    assertThat(LoaderOptions.BATCH_SIZE).isSameAs(OptionNames.BATCH_SIZE);
  }
}
