package dev.stoker.examples.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The network's flat weights and gradients, its step, and its state between epochs. */
class SmallCnnTest {
  private static final int ROWS = 8;

  private FloatPointer images;
  private LongPointer labels;
  private Tensor x;
  private Tensor y;

  @BeforeEach
  void batch() {
    SplittableRandom random = new SplittableRandom(5);
    images = new FloatPointer(ROWS * 784L);
    labels = new LongPointer(ROWS);
    for (int i = 0; i < ROWS * 784; i++) {
      images.put(i, (float) random.nextDouble(-1, 1));
    }
    for (int r = 0; r < ROWS; r++) {
      labels.put(r, r % 10);
    }
    x = torch.from_blob(images, new long[] {ROWS, 784}, new TensorOptions(ScalarType.Float));
    y = torch.from_blob(labels, new long[] {ROWS}, new TensorOptions(ScalarType.Long));
  }

  @AfterEach
  void free() {
    x.close();
    y.close();
    images.close();
    labels.close();
  }

  @Test
  void shouldFitOneBatch() {
    try (SmallCnn model = new SmallCnn(CnnState.initial(1), 0.05f, 0.9f)) {
      float first = model.backward(x, y);
      model.step();
      float last = first;
      for (int i = 0; i < 30; i++) {
        last = model.backward(x, y);
        model.step();
      }
      assertThat(last).isLessThan(first * 0.2f);
      try (PointerScope scope = new PointerScope()) {
        assertThat(model.predict(x)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
      }
    }
  }

  @Test
  void shouldStepAlongTheGradientsWrittenBack() {
    CnnState start = CnnState.initial(2);
    try (SmallCnn model = new SmallCnn(start, 0.1f, 0.9f)) {
      model.backward(x, y);
      float[] gradients = model.readGradients(new float[SmallCnn.Layout.SIZE]);
      assertThat(gradients)
          .as("the flat buffer of every parameter's gradient")
          .isNotEqualTo(new float[SmallCnn.Layout.SIZE]);
      float[] written = new float[SmallCnn.Layout.SIZE];
      written[0] = 1f; // conv1's first weight only
      model.writeGradients(written);
      model.step();

      CnnState after = model.state();
      assertThat(after.params()[0]).isEqualTo(start.params()[0] - 0.1f);
      assertThat(Arrays.copyOfRange(after.params(), 1, SmallCnn.Layout.SIZE))
          .containsExactly(Arrays.copyOfRange(start.params(), 1, SmallCnn.Layout.SIZE));
      assertThat(after.velocity()[0]).isEqualTo(1f);
    }
  }

  @Test
  void shouldKeepTheGradientBufferInPlaceFromStepToStep() {
    try (SmallCnn model = new SmallCnn(CnnState.initial(2), 0.1f, 0.9f)) {
      model.backward(x, y);
      long address = model.gradients().address();
      model.step();
      model.backward(x, y);
      assertThat(model.gradients().address()).isEqualTo(address);
    }
  }

  @Test
  void shouldCarryWeightsAndMomentumAcrossInstances() {
    CnnState trained;
    try (SmallCnn model = new SmallCnn(CnnState.initial(4), 0.05f, 0.9f)) {
      model.backward(x, y);
      model.step();
      trained = model.state();
      assertThat(model.checksum()).isEqualTo(trained.checksum());
    }
    try (SmallCnn again = new SmallCnn(trained, 0.05f, 0.9f)) {
      assertThat(again.state().params()).containsExactly(trained.params());
      assertThat(again.state().velocity()).containsExactly(trained.velocity());
    }
    assertThat(CnnState.initial(4).checksum())
        .isEqualTo(CnnState.initial(4).checksum())
        .isNotEqualTo(CnnState.initial(5).checksum());
  }

  @Test
  void shouldRefuseAStateOfAnotherLayoutAndUseAfterClose() {
    assertThatThrownBy(() -> new CnnState(new float[3], new float[3]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "params: 3, velocity: 3 values (expected: "
                + SmallCnn.Layout.SIZE
                + " each, the SmallCnn's parameter count)");
    SmallCnn model = new SmallCnn(CnnState.initial(1), 0.05f, 0.9f);
    model.close();
    model.close();
    assertThatThrownBy(() -> model.backward(x, y))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("this SmallCnn is closed");
    assertThatThrownBy(model::state).hasMessage("this SmallCnn is closed");
    assertThatThrownBy(model::checksum).hasMessage("this SmallCnn is closed");
    assertThatThrownBy(model::step).hasMessage("this SmallCnn is closed");
  }

  @Test
  void shouldRefuseAStepOrGradientsBeforeBackward() {
    try (SmallCnn model = new SmallCnn(CnnState.initial(1), 0.05f, 0.9f)) {
      assertThatThrownBy(model::step)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("no gradients yet: call backward first");
      assertThatThrownBy(model::gradients).hasMessage("no gradients yet: call backward first");
    }
  }
}
