package dev.stoker.examples.demo;

import dev.stoker.examples.torch.CnnState;
import dev.stoker.examples.torch.SmallCnn;
import dev.stoker.examples.torch.TorchNatives;
import java.io.Serializable;
import java.util.List;
import java.util.Locale;
import org.bytedeco.pytorch.global.torch;

/** The {@link SmallCnn} in PyTorch, trained data-parallel: the demo's default model. */
final class CnnModel implements DemoModel {
  private static final float MOMENTUM = 0.9f;

  private final DemoOptions options;
  private CnnState state;

  private CnnModel(DemoOptions options) {
    this.options = options;
    this.state = CnnState.initial(options.seed);
  }

  /**
   * @throws IllegalStateException if PyTorch's natives cannot be loaded here (the reason)
   */
  static CnnModel open(DemoOptions options) {
    TorchNatives.load().require();
    return new CnnModel(options);
  }

  @Override
  public String description() {
    return "CNN conv3x3x16-pool-conv3x3x32-pool-linear1568x10, "
        + SmallCnn.Layout.SIZE
        + " parameters (PyTorch's C++ library "
        + version()
        + " through JavaCPP)";
  }

  private static String version() {
    String version = torch.class.getPackage().getImplementationVersion();
    return version == null ? "" : version;
  }

  @Override
  public RankNetwork.Factory network() {
    return new CnnNetwork.Factory(state, options.learningRates(), MOMENTUM);
  }

  @Override
  public void update(Serializable weights) {
    state = (CnnState) weights;
  }

  @Override
  public String epochNote(List<DemoTraining.Outcome> ranks, int epoch) {
    StringBuilder note = new StringBuilder();
    for (int r = 0; r < ranks.size(); r++) {
      EpochFigures figures = ranks.get(r).epochs().get(epoch);
      int threads = ranks.get(r).threads();
      note.append(
          String.format(
              Locale.ROOT,
              "%srank %d: %d thread%s, %d steps, %.0f samples/s "
                  + "in the step, weights equal after every step (%d checks), process RSS %d MB",
              r == 0 ? "" : "; ",
              r,
              threads,
              threads == 1 ? "" : "s",
              figures.batches(),
              figures.samples() / Math.max(figures.stepSeconds(), 1e-9),
              figures.checks(),
              figures.residentBytes() >> 20));
    }
    return note.toString();
  }

  @Override
  public String closingNote(List<DemoTraining.Outcome> ranks) {
    double stepRate = 0;
    for (DemoTraining.Outcome rank : ranks) {
      EpochFigures last = rank.epochs().get(rank.epochs().size() - 1);
      stepRate += last.samples() / Math.max(last.stepSeconds(), 1e-9);
    }
    return String.format(
        Locale.ROOT, "; the CNN's step: %.0f samples/s over the ranks in the last epoch", stepRate);
  }
}
