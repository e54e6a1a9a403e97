package dev.stoker.tools.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.metrics.ShuffleQuality;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shuffle benchmark on a small sorted input: the order without shuffle follows storage, a
 * shuffle buffer mixes the labels, more so the larger it is, and a permutation most; one run with
 * {@code epochOrder=global} orders an epoch as a read of it does; no timing.
 */
class ShuffleBenchTest {

  @Test
  void shouldMeasureEachSettingsQualityAgainstAPermutationsAndReportIt() {
    StringWriter progress = new StringWriter();
    ShuffleBenchResult result =
        ShuffleBench.run(
            new ShuffleBench.Config(6000, 2, 32, 1, List.of(64, 0)),
            new PrintWriter(progress, true));

    assertThat(result.settings())
        .extracting(ShuffleBench.Setting::name)
        .containsExactly(
            "no shuffle",
            "shuffleBuffer=64",
            "shuffleBuffer=default",
            "globalBatchSize=64, default buffer",
            "epochOrder=global, one run");
    ShuffleQuality none = result.settings().get(0).quality().get(0);
    ShuffleQuality small = result.settings().get(1).quality().get(0);
    ShuffleQuality large = result.settings().get(2).quality().get(0);
    ShuffleQuality permutation = result.permutation().get(0);
    ShuffleQuality global = result.settings().get(3).quality().get(0);
    ShuffleQuality oneRun = result.settings().get(4).quality().get(0);
    assertThat(oneRun)
        .as("one run with epochOrder=global: the same plan as a read of the epoch")
        .isEqualTo(large);
    assertThat(none.steps()).isEqualTo(6000 / 64);
    assertThat(none.gapEntropyBits()).as("storage order: every gap 1").isZero();
    assertThat(none.labelTv()).isGreaterThan(0.7); // two ranks of one label a step: 0.8
    assertThat(small.gapEntropyBits()).isGreaterThan(none.gapEntropyBits());
    assertThat(small.labelTv()).isLessThan(none.labelTv());
    assertThat(large.labelTv()).isLessThan(small.labelTv());
    assertThat(permutation.labelTv()).isLessThan(0.5).isLessThanOrEqualTo(large.labelTv() + 0.05);
    assertThat(global.steps()).as("the global order's steps").isEqualTo(6000 / 64);
    assertThat(global.labelTv()).as("global batches of 24 streams").isLessThan(small.labelTv());
    assertThat(result.rowsPerSecond(result.settings().get(0))).isPositive();
    assertThat(progress.toString()).contains("wrote 6,000 rows sorted by label", "epoch 0");
    StringWriter report = new StringWriter();
    result.print(new PrintWriter(report, true));
    assertThat(report.toString())
        .contains("workload shuffle", "no shuffle", "shuffleBuffer=64", "a random permutation");
    assertThat(result.json())
        .contains(
            "\"workload\": \"shuffle\"",
            "\"setting\": \"shuffleBuffer=64\"",
            "\"rows_per_s\": ",
            "\"gap_entropy\": ",
            "\"label_tv\": ",
            "\"full_shuffle_label_tv\": ");
  }

  @Test
  void shouldRefuseBadSettings() {
    assertThatThrownBy(() -> new ShuffleBench.Config(100, 2, 64, 1, List.of(0)))
        .hasMessageContaining("rows: 100 (expected: at least ranks x batchSize = 128");
    assertThatThrownBy(() -> new ShuffleBench.Config(1000, 2, 64, 1, List.of(-1)))
        .hasMessageContaining("buffers: [-1]");
    assertThatThrownBy(() -> new ShuffleBench.Config(1000, 2, 64, 0, List.of(0)))
        .hasMessageContaining("epochs 0");
  }
}
