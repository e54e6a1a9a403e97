package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MlpTest {

  /** Two Gaussian blobs per class in 6 dimensions: separable enough to learn. */
  private static float[] blobs(int rows, int[] labels, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] x = new float[rows * 6];
    for (int r = 0; r < rows; r++) {
      labels[r] = random.nextInt(3);
      for (int i = 0; i < 6; i++) {
        x[r * 6 + i] = (float) ((i % 3 == labels[r] ? 2 : 0) + random.nextGaussian() * 0.5);
      }
    }
    return x;
  }

  @ParameterizedTest(name = "hidden={0}")
  @ValueSource(ints = {0, 5})
  void shouldComputeTheGradientOfTheLoss(int hidden) {
    Mlp model = new Mlp(6, hidden, 3, 7);
    int[] y = new int[4];
    float[] x = blobs(4, y, 1);
    model.backward(x, y, 4);
    float[] analytic = model.gradients().clone();
    float[] direction = new float[model.size()];
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < direction.length; i++) {
      direction[i] = (float) random.nextGaussian();
    }
    double eps = 1e-3;
    model.step(scaled(direction, (float) -eps), 1f, 0f); // params + eps * d
    double plus = model.backward(x, y, 4);
    model.step(scaled(direction, (float) (2 * eps)), 1f, 0f); // params - eps * d
    double minus = model.backward(x, y, 4);
    double numeric = (plus - minus) / (2 * eps);
    double dot = 0;
    for (int i = 0; i < direction.length; i++) {
      dot += analytic[i] * direction[i];
    }
    assertThat(dot).isCloseTo(numeric, within(2e-2 * Math.max(1, Math.abs(numeric))));
  }

  private static float[] scaled(float[] v, float s) {
    float[] out = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i] * s;
    }
    return out;
  }

  @ParameterizedTest(name = "hidden={0}")
  @ValueSource(ints = {0, 8})
  void shouldLearnSeparableClasses(int hidden) {
    Mlp model = new Mlp(6, hidden, 3, 11);
    int[] y = new int[64];
    double first = 0;
    double last = 0;
    for (int step = 0; step < 200; step++) {
      float[] x = blobs(64, y, step);
      double loss = model.backward(x, y, 64);
      first = step == 0 ? loss : first;
      last = loss;
      model.step(model.gradients(), 0.1f, 0.9f);
    }
    int[] testY = new int[500];
    float[] test = blobs(500, testY, 999);
    int[] predicted = model.predict(test, 500);
    int right = 0;
    for (int r = 0; r < 500; r++) {
      right += predicted[r] == testY[r] ? 1 : 0;
    }
    assertThat(last).isLessThan(first / 4);
    assertThat(right / 500.0).isGreaterThan(0.95);
  }
}
