package dev.stoker.spark.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.OptionNames;
import dev.stoker.spark.SparkOptionNames;
import dev.stoker.spark.SparkRunOptions;
import dev.stoker.spark.parquet.SourceOptions;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The registry names every option once, with the defaults its readers apply. */
class OptionRegistryTest {

  @Test
  void shouldHoldEveryOptionOfTheLoaderTheSourceAndTheRunOnce() {
    Set<String> names = new java.util.TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    for (OptionSpec spec : OptionRegistry.all()) {
      assertThat(names.add(spec.name())).as("%s listed once", spec.name()).isTrue();
    }
    assertThat(names)
        .containsAll(OptionNames.LOADER)
        .contains(OptionNames.WORLD_SIZE)
        .containsAll(SparkOptionNames.RUN)
        .contains(
            SourceOptions.EPOCH,
            SourceOptions.SHUFFLE_BUFFER,
            SourceOptions.VERIFY_CHECKSUMS,
            SourceOptions.SHAPE_PREFIX);
    assertThat(OptionRegistry.find("BATCHSIZE")).map(OptionSpec::name).contains("batchSize");
    assertThat(OptionRegistry.find("shape.image")).map(OptionSpec::name).contains("shape.");
    assertThat(OptionRegistry.find("shape.")).isEmpty();
  }

  @Test
  void shouldStateTheDefaultsTheReadersApply() {
    Map<String, Object> loader = LoaderOptions.builder().build().asMap();
    for (String name : OptionNames.LOADER) {
      if (name.equals(OptionNames.NAME) || name.equals(OptionNames.PREFETCH_FACTOR)) {
        continue; // generated; applies with workers only
      }
      String stated = OptionRegistry.find(name).orElseThrow().defaultValue();
      assertThat(LoaderOptions.fromMap(Map.of(name, stated)).asMap().get(name))
          .as("the stated default of %s, read back", name)
          .isEqualTo(loader.get(name));
    }
    SparkRunOptions run = SparkRunOptions.builder().build();
    Map<String, String> stated =
        Map.of(
            SparkOptionNames.MAX_SHARD_BYTES,
            "maxShardBytes",
            SparkOptionNames.CACHE,
            "cache",
            SparkOptionNames.REBALANCE,
            "rebalance",
            SparkOptionNames.PROGRESS_INTERVAL,
            "progressInterval",
            SparkOptionNames.COLLECTIVE_TIMEOUT,
            "collectiveTimeout",
            SparkOptionNames.VERIFY_CHECKSUMS,
            "verifyChecksums");
    stated.forEach(
        (name, key) ->
            assertThat(
                    SparkRunOptions.fromMap(
                            Map.of(name, OptionRegistry.find(key).orElseThrow().defaultValue()))
                        .toString())
                .as("the stated default of %s, read back", name)
                .isEqualTo(run.toString()));
  }

  @Test
  void shouldLetGivenOptionsBeatTheSessionsSettingsOfTheirLayers() {
    Map<String, String> session =
        Map.of(
            "spark.stoker.batchSize",
            "64",
            "spark.stoker.cache",
            "none",
            "spark.stoker.epoch",
            "3",
            "spark.sql.shuffle.partitions",
            "4");
    Set<OptionLayer> run = EnumSet.of(OptionLayer.LOADER, OptionLayer.PLACEMENT, OptionLayer.RUN);

    assertThat(OptionRegistry.resolve(Map.of("BatchSize", "8"), session, run))
        .containsExactly(Map.entry("cache", "none"), Map.entry("BatchSize", "8"));
    assertThat(OptionRegistry.resolve(Map.of(), session, SourceOptions.LAYERS))
        .containsOnly(Map.entry("batchSize", "64"), Map.entry("epoch", "3"));
  }

  @Test
  void shouldRefuseASessionSettingThatNamesNoOption() {
    assertThatThrownBy(
            () ->
                OptionRegistry.resolve(
                    Map.of(), Map.of("spark.stoker.batchSzie", "64"), SourceOptions.LAYERS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "spark.stoker.batchSzie: a session setting that names no option of "
                + "Stoker's (expected: did you mean 'spark.stoker.batchSize'?)");
    assertThatThrownBy(
            () ->
                OptionRegistry.resolve(
                    Map.of(), Map.of("spark.stoker.colour", "red"), SourceOptions.LAYERS))
        .hasMessageStartingWith(
            "spark.stoker.colour: a session setting that names no option "
                + "of Stoker's (expected: spark.stoker.<option>, one of batchSize, shuffle, seed,");
  }
}
