package dev.stoker.examples.demo;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.spark.RankContext;
import dev.stoker.spark.RankFunction;

/**
 * One epoch of data-parallel training on a rank, as DDP does it: every rank starts from the same
 * model (it travels in this function), computes the gradients of its batch, and the ranks average
 * them ({@link RankContext#allReduceMean}) before every step, so that they stay identical. Pixels
 * arrive normalized, as float32, from the loader.
 */
final class EpochStep implements RankFunction<EpochStep.Outcome> {
  private static final long serialVersionUID = 1L;

  /**
   * What a rank returns.
   *
   * @param model the model after the epoch (rank 0 only; the others hold the same)
   * @param lossSum the sum of the batches' mean losses on this rank
   */
  record Outcome(Mlp model, double lossSum, long batches, long samples)
      implements DemoModel.Outcome {}

  private final Mlp model;
  private final int epoch;
  private final float learningRate;
  private final float momentum;

  EpochStep(Mlp model, int epoch, float learningRate, float momentum) {
    this.model = model;
    this.epoch = epoch;
    this.learningRate = learningRate;
    this.momentum = momentum;
  }

  @Override
  public Outcome run(RankContext rank, DataLoader loader) {
    int labels = loader.layout().schema().indexOf("label");
    // int32 as stored when a transform passed it through (the images), else declared int64
    boolean int64 = loader.layout().schema().field(labels).dtype() == DType.INT64;
    int batchSize = loader.layout().batchSize();
    float[] x = new float[batchSize * 784];
    int[] y = new int[batchSize];
    double loss = 0;
    long batches = 0;
    long samples = 0;
    for (Batch batch : loader.epoch(epoch)) {
      int rows = batch.size();
      batch.column("pixels").asFloatBuffer().get(x, 0, rows * 784);
      for (int r = 0; r < rows; r++) {
        y[r] = int64 ? (int) batch.getLong(labels, r, 0) : batch.getInt(labels, r, 0);
      }
      loss += model.backward(x, y, rows);
      model.step(rank.allReduceMean(model.gradients()), learningRate, momentum);
      batches++;
      samples += rows;
    }
    return new Outcome(rank.rank() == 0 ? model : null, loss, batches, samples);
  }
}
