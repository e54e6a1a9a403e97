package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.util.ClosestName;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Option names as {@link LoaderOptions#fromMap} reads them: Spark's case-insensitive options. */
class OptionMapTest {
  private static final String KNOWN =
      "batchSize, shuffle, seed, numWorkers, pinMemory, "
          + "prefetchFactor, persistentWorkers, dropLast, timeout, onBadSample, maxHostBytes, "
          + "transferDepth, name, rank, worldSize";

  private static void assertRejected(ThrowingCallable call, String message) {
    assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void shouldMatchOptionNamesIgnoringCase() {
    LoaderOptions options =
        LoaderOptions.fromMap(
            Map.of(
                "BATCHSIZE", "8", "numworkers", "2", "PrefetchFactor", "1", "onbadsample", "skip"));
    assertThat(options.batchSize()).isEqualTo(8);
    assertThat(options.numWorkers()).isEqualTo(2);
    assertThat(options.prefetchFactor()).isEqualTo(1);
    assertThat(options.onBadSample()).isEqualTo(OnBadSample.SKIP);
  }

  @Test
  void shouldRefuseSparksOwnKeysUnlessTheCallerAcceptsThem() {
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("path", "/data/train")),
        "option: 'path' (expected one of: " + KNOWN + ")");
    assertThat(
            LoaderOptions.fromMap(Map.of("PATH", "x", "batchSize", "4"), List.of("path", "paths")))
        .isEqualTo(LoaderOptions.builder().batchSize(4).build());
  }

  @Test
  void shouldAcceptPlacementNamesAndLeaveThemToPlacement() {
    Map<String, String> values = Map.of("rank", "3", "WORLDSIZE", "4", "batchSize", "2");
    assertThat(LoaderOptions.fromMap(values))
        .isEqualTo(LoaderOptions.builder().batchSize(2).build());
    assertThat(Placement.fromMap(values)).isEqualTo(Placement.of(3, 4));
  }

  @Test
  void shouldNotCheckPlacementValuesInTheLoaderLayer() {
    assertThat(LoaderOptions.fromMap(Map.of("rank", "nine", "worldSize", "0")))
        .isEqualTo(LoaderOptions.builder().build());
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "batch_size, batchSize",
    "numworker, numWorkers",
    "BATCH-SIZE, batchSize",
    "batchSzie, batchSize",
    "num_workers, numWorkers",
    "prefetch_factor, prefetchFactor",
    "timout, timeout",
    "seeds, seed",
    "world_size, worldSize",
    "ranks, rank",
    "persistent_worker, persistentWorkers",
    "pin_memory, pinMemory",
    "drop_last, dropLast",
    "on_bad_sample, onBadSample",
    "maxHostByte, maxHostBytes",
    "transfer-depth, transferDepth",
    "nmae, name"
  })
  void shouldSuggestTheClosestOptionName(String given, String suggested) {
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of(given, "4")),
        "option: '" + given + "' (expected: a known option; did you mean '" + suggested + "'?)");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"colour", "batch", "workers", "size", "n", "prefetch", "maxHostMemory", "epoch"})
  void shouldListTheKnownNamesWhenNoneIsClose(String given) {
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of(given, "1")),
        "option: '" + given + "' (expected one of: " + KNOWN + ")");
  }

  @Test
  void shouldAcceptASourcesOwnOptionsAndSuggestThem() {
    List<String> own = List.of("epoch", "format");
    assertThat(LoaderOptions.fromMap(Map.of("EPOCH", "3", "batchSize", "2"), own))
        .isEqualTo(LoaderOptions.builder().batchSize(2).build());
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("epochs", "3"), own),
        "option: 'epochs' (expected: a known option; did you mean 'epoch'?)");
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("colour", "red"), own),
        "option: 'colour' (expected one of: " + KNOWN + ", epoch, format)");
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("epoch", "3", "Epoch", "4"), own),
        "epoch: given twice, as 'Epoch' = '4' and 'epoch' = '3' (expected: once; option "
            + "names ignore case)");
  }

  @Test
  void shouldListASourcesNameOnceEvenWhenItIsAlsoStokers() {
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("colour", "red"), List.of("PATH", "Rank")),
        "option: 'colour' (expected one of: " + KNOWN + ", PATH)");
  }

  @Test
  void shouldRejectTheSameOptionTwiceInDifferentCase() {
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("batchSize", "8", "BATCHSIZE", "16")),
        "batchSize: given twice, as 'BATCHSIZE' = '16' and 'batchSize' = '8' (expected: once; "
            + "option names ignore case)");
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("rank", "1", "Rank", "1")),
        "rank: given twice, as 'Rank' = '1' and 'rank' = '1' (expected: once; option names "
            + "ignore case)");
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("path", "/a", "PATH", "/b"), List.of("path")),
        "path: given twice, as 'PATH' = '/b' and 'path' = '/a' (expected: "
            + "once; option names ignore case)");
  }

  @Test
  void shouldReportTheFirstBadNameInSortedOrder() {
    assertRejected(
        () -> LoaderOptions.fromMap(Map.of("zzz", "1", "colour", "2", "seed", "3")),
        "option: 'colour' (expected one of: " + KNOWN + ")");
  }

  @Test
  void shouldRejectANullName() {
    Map<String, String> values = new HashMap<>();
    values.put(null, "4");
    assertRejected(() -> LoaderOptions.fromMap(values), "option: null (expected: a name)");
  }

  @Test
  void shouldGroupTheNamesByLayer() {
    assertThat(OptionNames.LOADER)
        .containsExactly(
            "batchSize",
            "shuffle",
            "seed",
            "numWorkers",
            "pinMemory",
            "prefetchFactor",
            "persistentWorkers",
            "dropLast",
            "timeout",
            "onBadSample",
            "maxHostBytes",
            "transferDepth",
            "name");
    assertThat(OptionNames.PLACEMENT).containsExactly("rank", "worldSize");
  }

  @Test
  void shouldMeasureEditsWithSwapsOfNeighbours() {
    assertThat(ClosestName.distance("batchsize", "batchsize")).isZero();
    assertThat(ClosestName.distance("batchszie", "batchsize")).isEqualTo(1);
    assertThat(ClosestName.distance("numworker", "numworkers")).isEqualTo(1);
    assertThat(ClosestName.distance("seed", "sede")).isEqualTo(1);
    assertThat(ClosestName.distance("", "rank")).isEqualTo(4);
    assertThat(ClosestName.of("RANK_", List.of("rank"))).isEqualTo("rank");
    assertThat(ClosestName.of("ab", List.of("rank"))).isNull();
  }
}
