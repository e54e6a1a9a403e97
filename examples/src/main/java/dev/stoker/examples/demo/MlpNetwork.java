package dev.stoker.examples.demo;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.spark.RankContext;
import java.io.Serializable;

/**
 * The {@link Mlp} on a rank: its gradients averaged with the other ranks' ({@link
 * RankContext#allReduceMean}) before every step, so that the ranks' models stay identical. Pixels
 * arrive normalized, as float32, from the loader.
 */
final class MlpNetwork implements RankNetwork {
  private final RankContext rank;
  private final Mlp model;
  private final float[] learningRates;
  private final float momentum;
  private float learningRate;
  private float[] x = new float[0];
  private int[] y = new int[0];

  /** The factory that travels to the ranks with the model to start from. */
  record Factory(Mlp model, float[] learningRates, float momentum) implements RankNetwork.Factory {
    @Override
    public RankNetwork open(RankContext rank) {
      return new MlpNetwork(rank, model, learningRates, momentum);
    }
  }

  private MlpNetwork(RankContext rank, Mlp model, float[] learningRates, float momentum) {
    this.rank = rank;
    this.model = model;
    this.learningRates = learningRates;
    this.momentum = momentum;
  }

  @Override
  public void startEpoch(int epoch) {
    learningRate = learningRates[epoch];
  }

  @Override
  public double step(Batch batch) {
    int labels = batch.schema().indexOf("label");
    // int32 as stored when a transform passed it through (the images), else declared int64
    boolean int64 = batch.schema().field(labels).dtype() == DType.INT64;
    int rows = batch.size();
    if (x.length < rows * 784) {
      x = new float[rows * 784];
      y = new int[rows];
    }
    batch.column("pixels").asFloatBuffer().get(x, 0, rows * 784);
    for (int r = 0; r < rows; r++) {
      y[r] = int64 ? (int) batch.getLong(labels, r, 0) : batch.getInt(labels, r, 0);
    }
    double loss = model.backward(x, y, rows);
    model.step(rank.allReduceMean(model.gradients()), learningRate, momentum);
    return loss;
  }

  @Override
  public long checks() {
    return 0;
  }

  @Override
  public long rightAnswers(TestSet test, int from, int to) {
    return test.rightAnswers(model, from, to);
  }

  @Override
  public Serializable weights() {
    return model;
  }

  @Override
  public int threads() {
    return 1;
  }

  @Override
  public void close() {}
}
