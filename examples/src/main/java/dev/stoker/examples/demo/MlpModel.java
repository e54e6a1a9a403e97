package dev.stoker.examples.demo;

import dev.stoker.spark.RankFunction;
import java.util.List;

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
  public RankFunction<EpochStep.Outcome> epoch(int epoch) {
    return new EpochStep(model, epoch, options.learningRate(epoch), MOMENTUM);
  }

  @Override
  public void update(List<? extends Outcome> outcomes) {
    model = ((EpochStep.Outcome) outcomes.get(0)).model();
  }

  @Override
  public double accuracy(TestSet test) {
    return test.accuracy(model);
  }
}
