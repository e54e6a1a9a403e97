package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.spark.RankProgress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressLineTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  private String text() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void shouldRedrawOneLineWithTheBatchesOfEveryRankOnlyWhenTheyChange() {
    ProgressLine line = new ProgressLine(err, 5, 40);

    line.accept(new RankProgress(0, 100, 10, 0, false));
    line.accept(new RankProgress(1, 100, 10, 0, false));
    line.accept(new RankProgress(1, 100, 10, 0, false));
    line.accept(new RankProgress(0, 100, 20, 0, true));

    assertThat(text())
        .doesNotContain("\n")
        .isEqualTo(
            "\repoch 1/5 [#######.......................] 10/40 batches"
                + "\repoch 1/5 [###############...............] 20/40 batches"
                + "\repoch 1/5 [######################........] 30/40 batches");
  }

  @Test
  void shouldShowTheEpochTheRanksAreInAndItsBatches() {
    ProgressLine line = new ProgressLine(err, 3, 10);

    line.accept(new RankProgress(0, 0, 5, 0, false));
    line.accept(new RankProgress(1, 0, 5, 0, false));
    line.accept(new RankProgress(0, 0, 7, 0, false));
    line.accept(new RankProgress(1, 0, 17, 0, false));
    line.accept(new RankProgress(0, 0, 40, 0, true));

    assertThat(text())
        .isEqualTo(
            "\repoch 1/3 [###############...............] 5/10 batches"
                + "\repoch 1/3 [##############################] 10/10 batches"
                + "\repoch 2/3 [######........................] 2/10 batches "
                + "\repoch 3/3 [############..................] 4/10 batches"
                + "\repoch 3/3 [##############################] 10/10 batches");
  }

  @Test
  void shouldClearItsLineOnceAndOnlyWhenDrawn() {
    ProgressLine line = new ProgressLine(err, 1, 2);
    line.clear();
    assertThat(text()).isEmpty();

    line.accept(new RankProgress(0, 1, 2, 0, true));
    line.clear();
    line.clear();

    String drawn = "epoch 1/1 [##############################] 2/2 batches";
    assertThat(text()).isEqualTo("\r" + drawn + "\r" + " ".repeat(drawn.length()) + "\r");
  }
}
