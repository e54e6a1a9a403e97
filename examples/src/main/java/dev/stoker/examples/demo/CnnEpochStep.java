package dev.stoker.examples.demo;

import dev.stoker.examples.torch.CnnState;
import dev.stoker.examples.torch.SmallCnn;
import dev.stoker.examples.torch.TorchBatches;
import dev.stoker.examples.torch.TorchNatives;
import dev.stoker.loader.Batch;
import dev.stoker.loader.DataLoader;
import dev.stoker.spark.RankContext;
import dev.stoker.spark.RankFunction;
import java.util.Arrays;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;

/**
 * One epoch of data-parallel training of the {@link SmallCnn} on a rank, as DDP does it: every
 * rank starts from the same weights (they travel in this function), wraps each batch as tensors
 * without a copy, computes its gradients into the network's flat buffer, reads it in one bulk
 * copy, averages it with the other ranks ({@link RankContext#allReduceMean}), writes it back and
 * takes one optimizer step. After every step the ranks compare their weights' checksums and stop
 * with an error if any differs. The framework's threads are the task's CPUs.
 */
final class CnnEpochStep implements RankFunction<CnnEpochStep.Outcome> {
  private static final long serialVersionUID = 1L;

  /**
   * What a rank returns.
   *
   * @param state the weights and momentum after the epoch (rank 0 only; the others hold the same)
   * @param lossSum the sum of the batches' mean losses on this rank
   * @param checks steps after which the ranks' weights were compared (and found equal)
   * @param threads the framework's intra-op threads on this rank
   * @param stepSeconds seconds in forward, backward, averaging and the step (not the loader)
   */
  record Outcome(CnnState state, double lossSum, long batches, long samples, long checks,
      int threads, double stepSeconds) implements DemoModel.Outcome {}

  private final CnnState state;
  private final int epoch;
  private final float learningRate;
  private final float momentum;

  CnnEpochStep(CnnState state, int epoch, float learningRate, float momentum) {
    this.state = state;
    this.epoch = epoch;
    this.learningRate = learningRate;
    this.momentum = momentum;
  }

  @Override
  public Outcome run(RankContext rank, DataLoader loader) {
    int threads = TorchNatives.useThreads(rank.taskContext().cpus());
    float[] gradients = new float[SmallCnn.Layout.SIZE];
    double loss = 0;
    long batches = 0;
    long samples = 0;
    long stepNanos = 0;
    try (SmallCnn model = new SmallCnn(state, learningRate, momentum)) {
      for (Batch batch : loader.epoch(epoch)) {
        long begin = System.nanoTime();
        try (PointerScope scope = new PointerScope()) {
          Tensor pixels = TorchBatches.hostTensor(batch, "pixels");
          Tensor labels = TorchBatches.hostTensor(batch, "label");
          loss += model.backward(pixels, labels);
        }
        model.writeGradients(rank.allReduceMean(model.readGradients(gradients)));
        model.step();
        checkSameWeights(rank, model.checksum(), batches);
        stepNanos += System.nanoTime() - begin;
        batches++;
        samples += batch.size();
      }
      return new Outcome(rank.rank() == 0 ? model.state() : null, loss, batches, samples,
          batches, threads, stepNanos / 1e9);
    }
  }

  /**
   * Compares the ranks' weights after step {@code step}: each rank's checksum in its own slot,
   * summed over the ranks, so every rank sees them all and all stop together on a difference.
   */
  private void checkSameWeights(RankContext rank, long checksum, long step) {
    long[] all = new long[rank.worldSize()];
    all[rank.rank()] = checksum;
    rank.allReduceSum(all);
    for (long other : all) {
      if (other != checksum) {
        throw new IllegalStateException(String.format("epoch %d step %d: the ranks' weights "
            + "differ (CRC-32 per rank: %s); every rank must apply the same averaged gradients",
            epoch, step, Arrays.toString(all)));
      }
    }
  }
}
