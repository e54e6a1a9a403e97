package dev.stoker.examples.demo;

import dev.stoker.examples.torch.SmallCnn;
import dev.stoker.spark.RankContext;
import java.util.Arrays;
import org.bytedeco.pytorch.Tensor;

/**
 * One data-parallel training step of the {@link SmallCnn} on a rank, as DDP takes it: forward and
 * backward on the rank's batch into the network's flat gradient buffer, one bulk copy out, the
 * ranks' mean ({@link RankContext#allReduceMean}), one bulk copy back, one optimizer step; then the
 * ranks compare their weights' checksums and all stop with an error if any differs. The demo's
 * epochs and {@code stoker bench --workload train} both take this step.
 */
public final class DataParallelStep {
  private final RankContext rank;
  private final SmallCnn model;
  private final float[] gradients = new float[SmallCnn.Layout.SIZE];
  private final String where;
  private long steps;

  /**
   * @param where for messages, e.g. {@code epoch 3}
   */
  public DataParallelStep(RankContext rank, SmallCnn model, String where) {
    this.rank = rank;
    this.model = model;
    this.where = where;
  }

  /** Takes one step on {@code pixels} and {@code labels}; returns the batch's mean loss. */
  public float run(Tensor pixels, Tensor labels) {
    float loss = model.backward(pixels, labels);
    model.writeGradients(rank.allReduceMean(model.readGradients(gradients)));
    model.step();
    checkSameWeights(rank, model.checksum(), where + " step " + steps);
    steps++;
    return loss;
  }

  /** Steps taken, each followed by a comparison of the ranks' weights that found them equal. */
  public long steps() {
    return steps;
  }

  /**
   * Compares the ranks' weights: each rank's checksum in its own slot, summed over the ranks, so
   * that every rank sees them all and all stop together on a difference.
   *
   * @throws IllegalStateException on every rank if any two checksums differ
   */
  static void checkSameWeights(RankContext rank, long checksum, String where) {
    long[] all = new long[rank.worldSize()];
    all[rank.rank()] = checksum;
    rank.allReduceSum(all);
    for (long other : all) {
      if (other != checksum) {
        throw new IllegalStateException(
            String.format(
                "%s: the ranks' weights differ (CRC-32 "
                    + "per rank: %s); every rank must apply the same averaged gradients",
                where, Arrays.toString(all)));
      }
    }
  }
}
