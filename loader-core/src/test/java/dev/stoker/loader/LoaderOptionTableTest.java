package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.option.StokerOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The loader's table defines each option once; everything else reads it from there. */
class LoaderOptionTableTest {
  private static List<StokerOption<?>> all() {
    List<StokerOption<?>> all = new ArrayList<>(LoaderOptionTable.KNOBS);
    all.addAll(LoaderOptionTable.PLACEMENT);
    return all;
  }

  @Test
  void shouldGiveTheBuildersDefaults() {
    Map<String, Object> built = LoaderOptions.builder().build().asMap();
    for (StokerOption<?> option : LoaderOptionTable.KNOBS) {
      assertThat(built).containsEntry(option.name(), plainDefault(option));
    }
    assertThat(Placement.fromMap(Map.of()))
        .isEqualTo(
            Placement.of(
                LoaderOptionTable.RANK.defaultValue(),
                LoaderOptionTable.WORLD_SIZE.defaultValue()));
  }

  @Test
  void shouldShowEachDefaultAsTextItsOptionReadsBack() {
    for (StokerOption<?> option : all()) {
      if (option.defaultValue() != null) {
        assertThat(option.parse(option.defaultText()))
            .as(option.name())
            .isEqualTo(option.defaultValue());
      }
      assertThat(option.doc()).as(option.name()).isNotBlank().doesNotContain("\n");
      assertThat(option.values()).as(option.name()).isNotBlank();
    }
    assertThat(LoaderOptionTable.MAX_HOST_BYTES.defaultText()).isEqualTo("4g");
    assertThat(LoaderOptionTable.TIMEOUT.defaultText()).isEqualTo("0");
    assertThat(LoaderOptionTable.NAME.defaultText()).isEqualTo("(generated)");
  }

  @Test
  void shouldNameTheOptionsAsTheTableDoes() {
    assertThat(OptionNames.LOADER)
        .containsExactlyElementsOf(
            LoaderOptionTable.KNOBS.stream().map(StokerOption::name).toList());
    assertThat(OptionNames.PLACEMENT).containsExactly("rank", "worldSize");
  }

  @Test
  void shouldRefuseAValueTheSameWayAsTextAndTyped() {
    assertThatThrownBy(() -> LoaderOptionTable.BATCH_SIZE.parse("0"))
        .hasMessage("batchSize: 0 (expected: > 0)");
    assertThatThrownBy(() -> LoaderOptionTable.BATCH_SIZE.check(0))
        .hasMessage("batchSize: 0 (expected: > 0)");
    assertThatThrownBy(() -> LoaderOptionTable.TIMEOUT.check(Duration.ofMillis(-5)))
        .hasMessage("timeout: -5 ms (expected: >= 0; 0 waits forever)");
    assertThatThrownBy(() -> LoaderOptionTable.TIMEOUT.check(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("timeout");
    assertThat(LoaderOptionTable.NAME.check(" train ")).isEqualTo("train");
  }

  @SuppressWarnings("unchecked")
  private static <T> Object plainDefault(StokerOption<T> option) {
    return option.plain(option.defaultValue());
  }
}
