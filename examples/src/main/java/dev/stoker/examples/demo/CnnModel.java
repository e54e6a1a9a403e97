package dev.stoker.examples.demo;

import dev.stoker.examples.torch.CnnState;
import dev.stoker.examples.torch.SmallCnn;
import dev.stoker.examples.torch.TorchNatives;
import dev.stoker.spark.RankFunction;
import java.util.List;
import java.util.Locale;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** The {@link SmallCnn} in PyTorch, trained data-parallel: the demo's default model. */
final class CnnModel implements DemoModel {
  private static final float MOMENTUM = 0.9f;
  private static final int CHUNK = 500;

  private final DemoOptions options;
  private CnnState state;
  private String note = "";
  private double stepRate;

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
  public RankFunction<CnnEpochStep.Outcome> epoch(int epoch) {
    return new CnnEpochStep(state, epoch, options.learningRate(epoch), MOMENTUM);
  }

  @Override
  public void update(List<? extends Outcome> outcomes) {
    CnnEpochStep.Outcome first = (CnnEpochStep.Outcome) outcomes.get(0);
    state = first.state();
    StringBuilder ranks = new StringBuilder();
    stepRate = 0;
    for (int r = 0; r < outcomes.size(); r++) {
      CnnEpochStep.Outcome rank = (CnnEpochStep.Outcome) outcomes.get(r);
      ranks.append(
          String.format(
              Locale.ROOT,
              "%srank %d: %d thread%s, %d steps, %.0f samples/s "
                  + "in the step, weights equal after every step (%d checks), process RSS %d MB",
              r == 0 ? "" : "; ",
              r,
              rank.threads(),
              rank.threads() == 1 ? "" : "s",
              rank.batches(),
              rank.samples() / Math.max(rank.stepSeconds(), 1e-9),
              rank.checks(),
              rank.residentBytes() >> 20));
      stepRate += rank.samples() / Math.max(rank.stepSeconds(), 1e-9);
    }
    note = ranks.toString();
  }

  @Override
  public String closingNote() {
    return String.format(
        Locale.ROOT,
        "; the CNN's step: %.0f samples/s over the ranks in the " + "last epoch",
        stepRate);
  }

  @Override
  public String lastEpochNote() {
    return note;
  }

  /** Test images wrapped in chunks of {@value #CHUNK} without a copy, classified on the driver. */
  @Override
  public double accuracy(TestSet test) {
    float[] x = test.images();
    int[] y = test.labels();
    long right = 0;
    try (SmallCnn model = new SmallCnn(state, options.learningRate(), MOMENTUM);
        FloatPointer images = new FloatPointer(x)) {
      for (int from = 0; from < y.length; from += CHUNK) {
        int rows = Math.min(CHUNK, y.length - from);
        try (PointerScope scope = new PointerScope()) {
          Tensor chunk =
              torch.from_blob(
                  images.getPointer(from * 784L),
                  new long[] {rows, 784},
                  new TensorOptions(ScalarType.Float));
          long[] predicted = model.predict(chunk);
          for (int r = 0; r < rows; r++) {
            right += predicted[r] == y[from + r] ? 1 : 0;
          }
        }
      }
    }
    return (double) right / y.length;
  }
}
