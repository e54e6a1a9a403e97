package dev.stoker.spark.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.LoaderOptionTable;
import dev.stoker.loader.option.StokerOption;
import dev.stoker.spark.CacheMode;
import dev.stoker.spark.Rebalance;
import dev.stoker.spark.SparkOptionNames;
import dev.stoker.spark.collective.ListenOn;
import dev.stoker.spark.parquet.SourceOptions;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The connector's table: the loader's options and its own, each once, with its layers. */
class SparkOptionTableTest {

  private static Set<String> names(OptionLayer layer) {
    return SparkOptionTable.ALL.stream()
        .filter(spec -> spec.layers().contains(layer))
        .map(OptionSpec::name)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void shouldTakeTheLoadersKnobsFromItsTable() {
    assertThat(SparkOptionTable.ALL.subList(0, LoaderOptionTable.KNOBS.size()))
        .extracting(OptionSpec::option)
        .containsExactlyElementsOf(LoaderOptionTable.KNOBS);
    assertThat(names(OptionLayer.LOADER)).hasSize(LoaderOptionTable.KNOBS.size());
    assertThat(names(OptionLayer.PLACEMENT)).containsExactly("worldSize");
  }

  @Test
  void shouldNameTheRunsOptionsAsTheRunReadsThem() {
    Set<String> run = new TreeSet<>(SparkOptionNames.ACCEPTED);
    assertThat(names(OptionLayer.RUN)).isEqualTo(run);
  }

  @Test
  void shouldShowEachDefaultAsTextItsOptionReadsBack() {
    for (OptionSpec spec : SparkOptionTable.ALL) {
      assertDefaultReadsBack(spec.option());
      assertThat(spec.doc()).as(spec.name()).isNotBlank().doesNotContain("\n");
    }
  }

  private static <T> void assertDefaultReadsBack(StokerOption<T> option) {
    if (option.defaultValue() != null) {
      assertThat(option.parse(option.defaultText()))
          .as(option.name())
          .isEqualTo(option.defaultValue());
    }
  }

  @Test
  void shouldOfferTheEnumsLabels() {
    assertThat(Arrays.stream(CacheMode.values()).map(m -> SparkOptionTable.CACHE.parse(m.label())))
        .containsExactly("auto", "memory", "disk", "none");
    assertThat(Arrays.stream(Rebalance.values()).map(r -> Rebalance.parse(" " + r.label())))
        .containsExactly(Rebalance.values());
    assertThatThrownBy(() -> CacheMode.parse("sometimes"))
        .hasMessage("cache: 'sometimes' (expected: auto, memory, disk or none)");
  }

  @Test
  void shouldReadEachOptionGivenElseItsSessionSettingElseItsDefault() {
    Map<String, String> session =
        Map.of(
            "spark.stoker.epoch",
            "3",
            "spark.stoker.shuffleBuffer",
            "64",
            "spark.stoker.cache",
            "none");
    OptionReader read =
        OptionReader.resolve(Map.of("EPOCH", " 5 "), session, Set.of(OptionLayer.SOURCE));

    assertThat(read.get(SparkOptionTable.EPOCH)).isEqualTo(5);
    assertThat(read.get(SparkOptionTable.SHUFFLE_BUFFER)).isEqualTo(64);
    assertThat(read.get(SparkOptionTable.CACHE)).as("a setting of another layer").isEqualTo("auto");
    assertThat(read.get(SparkOptionTable.VERIFY_CHECKSUMS)).isTrue();
    assertThat(read.text(SparkOptionTable.RESUME_FROM)).isNull();
    assertThat(SparkOptionTable.SHAPE.parse("shape.x", "[2, 3]")).containsExactly(2, 3);
    assertThatThrownBy(() -> SparkOptionTable.SHAPE.parse("shape.x", "2,a"))
        .hasMessageStartingWith("shape.x: '2,a' (expected: dimensions > 0");
  }

  /**
   * The settings of the collective and the Python bridge are read from Spark's configuration, not
   * by a reader of options: set for the session, they are no unknown option to a read or a run.
   */
  @Test
  void shouldLeaveTheSparkSettingsToTheirReaders() {
    Map<String, String> session =
        Map.of(
            "spark.stoker.collective.ports",
            "41000-41015",
            "spark.stoker.collective.interface",
            "eth1",
            "spark.stoker.python.shmDir",
            "/tmp");
    for (Set<OptionLayer> layers :
        List.of(
            SourceOptions.LAYERS,
            EnumSet.of(OptionLayer.LOADER, OptionLayer.PLACEMENT, OptionLayer.RUN))) {
      assertThat(OptionRegistry.resolve(Map.of("batchSize", "4"), session, layers))
          .containsExactly(Map.entry("batchSize", "4"));
    }
    assertThatThrownBy(
            () ->
                OptionRegistry.resolve(
                    Map.of(), Map.of("spark.stoker.collective.port", "1"), SourceOptions.LAYERS))
        .hasMessage(
            "spark.stoker.collective.port: a session setting that names no option of "
                + "Stoker's (expected: did you mean 'spark.stoker.collective.ports'?)");
    assertThat(ListenOn.PORTS_OPTION)
        .as("the collective, which imports nothing of the connector, names its setting itself")
        .isEqualTo(OptionRegistry.setting(SparkOptionTable.COLLECTIVE_PORTS));
    assertThat(ConfigurationPage.markdown())
        .contains("| `spark.stoker.collective.ports` | ports first-last (41000-41015) | `0` |");
  }
}
