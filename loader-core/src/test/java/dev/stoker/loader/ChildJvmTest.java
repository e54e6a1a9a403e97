package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What could bring a JVM down, tried in JVMs of their own. */
class ChildJvmTest {

  @Test
  void shouldNeverCrashTheJvmWhateverViewsAUserKeeps() throws Exception {
    ChildJvm.Result result =
        ChildJvm.run(KeptViewsMain.class, List.of("-Xmx256m", "-XX:MaxDirectMemorySize=256m"));
    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).containsPattern("read [1-9][0-9]* bytes of [1-9][0-9]* views");
  }

  @Test
  void shouldGoOnOrFailAtTheBatchWhenDirectMemoryRunsOut() throws Exception {
    ChildJvm.Result result =
        ChildJvm.run(DirectMemoryMain.class, List.of("-Xmx256m", "-XX:MaxDirectMemorySize=48m"));
    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output())
        .containsPattern("host memory ran out at [4-8] slots")
        .containsPattern("workers=2: 12 batches with [3-7] slots")
        .containsPattern("workers=8: allocate failed at batch [0-9]+: java.lang.OutOfMemoryError")
        .contains("done");
  }
}
