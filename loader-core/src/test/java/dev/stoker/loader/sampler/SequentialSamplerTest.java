package dev.stoker.loader.sampler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SequentialSamplerTest {

  @Test
  void shouldYieldIndicesInOrderEveryEpoch() {
    SequentialSampler sampler = new SequentialSampler(5);
    assertThat(sampler.length()).isEqualTo(5);
    assertThat(sampler.indices(0)).containsExactly(0, 1, 2, 3, 4);
    assertThat(sampler.indices(9)).containsExactly(0, 1, 2, 3, 4);
  }

  @Test
  void shouldReturnAFreshArrayOnEachCall() {
    SequentialSampler sampler = new SequentialSampler(3);
    sampler.indices(0)[0] = 99;
    assertThat(sampler.indices(0)).containsExactly(0, 1, 2);
  }

  @Test
  void shouldAllowAnEmptyDataset() {
    assertThat(new SequentialSampler(0).indices(0)).isEmpty();
  }

  @Test
  void shouldRejectBadArgumentsWithExactMessages() {
    assertThatThrownBy(() -> new SequentialSampler(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("datasetSize: -1 (expected: >= 0)");
    assertThatThrownBy(() -> new SequentialSampler(3).indices(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epoch: -1 (expected: >= 0)");
  }
}
