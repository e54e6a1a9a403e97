package dev.stoker.examples.demo;

import dev.stoker.examples.torch.CnnState;
import dev.stoker.examples.torch.SmallCnn;
import dev.stoker.examples.torch.TorchBatches;
import dev.stoker.examples.torch.TorchNatives;
import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.spark.RankContext;
import java.io.Serializable;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * The {@link SmallCnn} on a rank: each batch wrapped as tensors without a copy, one {@link
 * DataParallelStep} per batch (the ranks compare their weights after each), the weights carried
 * from epoch to epoch in native memory. The framework's threads are the task's CPUs.
 */
final class CnnNetwork implements RankNetwork {
  private static final int CHUNK = 500;

  private final RankContext rank;
  private final float[] learningRates;
  private final float momentum;
  private final int threads;
  private CnnState state;
  private SmallCnn model;
  private DataParallelStep step;

  /** The factory that travels to the ranks with the weights to start from. */
  record Factory(CnnState state, float[] learningRates, float momentum)
      implements RankNetwork.Factory {
    @Override
    public RankNetwork open(RankContext rank) {
      return new CnnNetwork(rank, state, learningRates, momentum);
    }
  }

  private CnnNetwork(RankContext rank, CnnState state, float[] learningRates, float momentum) {
    this.rank = rank;
    this.state = state;
    this.learningRates = learningRates;
    this.momentum = momentum;
    this.threads = TorchNatives.useThreads(rank.taskContext().cpus());
  }

  /** The weights go on from the last epoch's network into one with this epoch's learning rate. */
  @Override
  public void startEpoch(int epoch) {
    if (model != null) {
      state = model.state();
      model.close();
      model = null;
    }
    model = new SmallCnn(state, learningRates[epoch], momentum);
    step = new DataParallelStep(rank, model, "epoch " + epoch);
  }

  @Override
  public double step(Batch batch) {
    try (PointerScope scope = new PointerScope()) {
      Tensor pixels = TorchBatches.hostTensor(batch, "pixels");
      Tensor labels = TorchBatches.hostTensor(batch, "label");
      if (batch.schema().field("label").dtype() != DType.INT64) {
        labels = labels.to(ScalarType.Long); // the images' labels pass the transform as int32
      }
      return step.run(pixels, labels);
    }
  }

  @Override
  public long checks() {
    return step == null ? 0 : step.steps();
  }

  /** This rank's share of the test images, copied once into native memory and wrapped in chunks. */
  @Override
  public long rightAnswers(TestSet test, int from, int to) {
    int[] y = test.labels();
    int rows = to - from;
    long right = 0;
    try (FloatPointer images = new FloatPointer(Math.max(rows, 1) * 784L)) {
      images.put(test.images(), from * 784, rows * 784);
      for (int start = 0; start < rows; start += CHUNK) {
        int chunkRows = Math.min(CHUNK, rows - start);
        try (PointerScope scope = new PointerScope()) {
          Tensor chunk =
              torch.from_blob(
                  images.getPointer(start * 784L),
                  new long[] {chunkRows, 784},
                  new TensorOptions(ScalarType.Float));
          long[] predicted = model.predict(chunk);
          for (int r = 0; r < chunkRows; r++) {
            right += predicted[r] == y[from + start + r] ? 1 : 0;
          }
        }
      }
    }
    return right;
  }

  @Override
  public Serializable weights() {
    return model == null ? state : model.state();
  }

  @Override
  public int threads() {
    return threads;
  }

  @Override
  public void close() {
    if (model != null) {
      model.close();
      model = null;
    }
  }
}
