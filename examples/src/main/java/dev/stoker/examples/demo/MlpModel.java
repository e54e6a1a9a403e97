package dev.stoker.examples.demo;

import java.io.Serializable;

/** The hand-made MLP in plain Java: the demo's model where PyTorch is not at hand. */
final class MlpModel implements DemoModel {
  private static final float MOMENTUM = 0.9f;

  private final DemoOptions options;
  private Mlp model;

  MlpModel(DemoOptions options) {
    this.options = options;
    this.model = new Mlp(784, options.hidden, 10, options.seed);
  }

  @Override
  public String description() {
    return "MLP 784-" + options.hidden + "-10 (plain Java)";
  }

  @Override
  public RankNetwork.Factory network() {
    return new MlpNetwork.Factory(model, options.learningRates(), MOMENTUM);
  }

  @Override
  public void update(Serializable weights) {
    model = (Mlp) weights;
  }
}
