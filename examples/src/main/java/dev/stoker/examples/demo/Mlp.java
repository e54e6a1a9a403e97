package dev.stoker.examples.demo;

import java.io.Serializable;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A small multilayer perceptron in plain Java for the demo: inputs, one hidden ReLU layer (or none:
 * softmax regression), softmax cross-entropy, SGD with momentum. Every parameter lives in one float
 * array and every gradient in another of the same layout, so that data-parallel ranks can average
 * gradients as one message per step. Serializable, so that a model travels to the ranks of a Spark
 * stage and back.
 */
public final class Mlp implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int inputs;
  private final int hidden;
  private final int classes;
  private final float[] params;
  private final float[] grads;
  private final float[] velocity;

  /** Offsets of w1 [hidden x inputs], b1 [hidden], w2 [classes x hidden'], b2 [classes]. */
  private final int w1;

  private final int b1;
  private final int w2;
  private final int b2;
  private transient float[] activations;
  private transient float[] probabilities;

  /**
   * @param hidden units of the hidden layer; 0 for softmax regression
   * @param seed the initial weights' seed (the same on every rank)
   */
  public Mlp(int inputs, int hidden, int classes, long seed) {
    if (inputs <= 0 || hidden < 0 || classes < 2) {
      throw new IllegalArgumentException(
          String.format(
              "inputs: %d, hidden: %d, classes: %d "
                  + "(expected: inputs > 0, hidden >= 0, classes >= 2)",
              inputs, hidden, classes));
    }
    this.inputs = inputs;
    this.hidden = hidden;
    this.classes = classes;
    int features = hidden == 0 ? inputs : hidden;
    this.w1 = 0;
    this.b1 = hidden * inputs;
    this.w2 = b1 + hidden;
    this.b2 = w2 + classes * features;
    this.params = new float[b2 + classes];
    this.grads = new float[params.length];
    this.velocity = new float[params.length];
    SplittableRandom random = new SplittableRandom(seed);
    he(random, w1, hidden * inputs, inputs);
    he(random, w2, classes * features, features);
  }

  private void he(SplittableRandom random, int from, int count, int fanIn) {
    double scale = Math.sqrt(2.0 / fanIn);
    for (int i = from; i < from + count; i++) {
      params[i] = (float) (gaussian(random) * scale);
    }
  }

  private static double gaussian(SplittableRandom random) {
    double u = 1 - random.nextDouble();
    double v = random.nextDouble();
    return StrictMath.sqrt(-2 * StrictMath.log(u)) * StrictMath.cos(2 * Math.PI * v);
  }

  /** Parameter count: the length of {@link #gradients()}. */
  public int size() {
    return params.length;
  }

  /** The gradients of the last {@link #backward} (mean over its rows); average across ranks. */
  public float[] gradients() {
    return grads;
  }

  /**
   * Forward and backward over {@code rows} rows of {@code x} ({@code rows x inputs}, row-major)
   * with labels {@code y}: fills {@link #gradients()} and returns the mean cross-entropy loss.
   */
  public double backward(float[] x, int[] y, int rows) {
    forward(x, rows);
    Arrays.fill(grads, 0f);
    int features = hidden == 0 ? inputs : hidden;
    double loss = 0;
    float[] delta = new float[classes];
    float[] hiddenDelta = new float[Math.max(hidden, 1)];
    float inv = 1f / rows;
    for (int r = 0; r < rows; r++) {
      int p = r * classes;
      loss -= StrictMath.log(Math.max(probabilities[p + y[r]], 1e-12f));
      for (int c = 0; c < classes; c++) {
        delta[c] = (probabilities[p + c] - (c == y[r] ? 1f : 0f)) * inv;
      }
      float[] in = hidden == 0 ? x : activations;
      int inRow = r * features;
      for (int c = 0; c < classes; c++) {
        float d = delta[c];
        grads[b2 + c] += d;
        int row = w2 + c * features;
        for (int j = 0; j < features; j++) {
          grads[row + j] += d * in[inRow + j];
        }
      }
      if (hidden > 0) {
        backwardHidden(x, r, delta, hiddenDelta);
      }
    }
    return loss / rows;
  }

  private void backwardHidden(float[] x, int r, float[] delta, float[] hiddenDelta) {
    int a = r * hidden;
    for (int j = 0; j < hidden; j++) {
      float sum = 0;
      for (int c = 0; c < classes; c++) {
        sum += params[w2 + c * hidden + j] * delta[c];
      }
      hiddenDelta[j] = activations[a + j] > 0 ? sum : 0f;
    }
    int xRow = r * inputs;
    for (int j = 0; j < hidden; j++) {
      float d = hiddenDelta[j];
      if (d == 0f) {
        continue;
      }
      grads[b1 + j] += d;
      int row = w1 + j * inputs;
      for (int i = 0; i < inputs; i++) {
        grads[row + i] += d * x[xRow + i];
      }
    }
  }

  /** One SGD step with momentum along {@code gradients} (e.g. the ranks' average). */
  public void step(float[] gradients, float learningRate, float momentum) {
    for (int i = 0; i < params.length; i++) {
      velocity[i] = momentum * velocity[i] + gradients[i];
      params[i] -= learningRate * velocity[i];
    }
  }

  /** The predicted class of each of {@code rows} rows of {@code x}. */
  public int[] predict(float[] x, int rows) {
    forward(x, rows);
    int[] out = new int[rows];
    for (int r = 0; r < rows; r++) {
      int best = 0;
      for (int c = 1; c < classes; c++) {
        if (probabilities[r * classes + c] > probabilities[r * classes + best]) {
          best = c;
        }
      }
      out[r] = best;
    }
    return out;
  }

  private void forward(float[] x, int rows) {
    if (x.length < rows * inputs) {
      throw new IllegalArgumentException(
          "x: "
              + x.length
              + " values for "
              + rows
              + " rows of "
              + inputs
              + " (expected: rows x inputs)");
    }
    int features = hidden == 0 ? inputs : hidden;
    if (hidden > 0 && (activations == null || activations.length < rows * hidden)) {
      activations = new float[rows * hidden];
    }
    if (probabilities == null || probabilities.length < rows * classes) {
      probabilities = new float[rows * classes];
    }
    for (int r = 0; r < rows; r++) {
      if (hidden > 0) {
        for (int j = 0; j < hidden; j++) {
          float sum = params[b1 + j];
          int row = w1 + j * inputs;
          int xRow = r * inputs;
          for (int i = 0; i < inputs; i++) {
            sum += params[row + i] * x[xRow + i];
          }
          activations[r * hidden + j] = Math.max(0f, sum);
        }
      }
      float[] in = hidden == 0 ? x : activations;
      int inRow = r * features;
      float max = Float.NEGATIVE_INFINITY;
      for (int c = 0; c < classes; c++) {
        float sum = params[b2 + c];
        int row = w2 + c * features;
        for (int j = 0; j < features; j++) {
          sum += params[row + j] * in[inRow + j];
        }
        probabilities[r * classes + c] = sum;
        max = Math.max(max, sum);
      }
      float total = 0;
      for (int c = 0; c < classes; c++) {
        // StrictMath: the same bits in every JVM (Math's may differ by an ulp between JIT tiers)
        float e = (float) StrictMath.exp(probabilities[r * classes + c] - max);
        probabilities[r * classes + c] = e;
        total += e;
      }
      for (int c = 0; c < classes; c++) {
        probabilities[r * classes + c] /= total;
      }
    }
  }
}
