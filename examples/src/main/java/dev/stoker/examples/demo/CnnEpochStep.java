package dev.stoker.examples.demo;

import dev.stoker.examples.torch.CnnState;
import dev.stoker.examples.torch.SmallCnn;
import dev.stoker.examples.torch.TorchBatches;
import dev.stoker.examples.torch.TorchNatives;
import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.spark.RankContext;
import dev.stoker.spark.RankFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * One epoch of data-parallel training of the {@link SmallCnn} on a rank, as DDP does it: every rank
 * starts from the same weights (they travel in this function), wraps each batch as tensors without
 * a copy, computes its gradients into the network's flat buffer, reads it in one bulk copy,
 * averages it with the other ranks ({@link RankContext#allReduceMean}), writes it back and takes
 * one optimizer step. After every step the ranks compare their weights' checksums and stop with an
 * error if any differs. The framework's threads are the task's CPUs.
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
   * @param residentBytes the rank's process's resident memory at the epoch's end (Linux), or -1
   */
  record Outcome(
      CnnState state,
      double lossSum,
      long batches,
      long samples,
      long checks,
      int threads,
      double stepSeconds,
      long residentBytes)
      implements DemoModel.Outcome {}

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
    double loss = 0;
    long samples = 0;
    long stepNanos = 0;
    try (SmallCnn model = new SmallCnn(state, learningRate, momentum)) {
      DataParallelStep step = new DataParallelStep(rank, model, "epoch " + epoch);
      for (Batch batch : loader.epoch(epoch)) {
        long begin = System.nanoTime();
        try (PointerScope scope = new PointerScope()) {
          Tensor pixels = TorchBatches.hostTensor(batch, "pixels");
          Tensor labels = TorchBatches.hostTensor(batch, "label");
          if (batch.schema().field("label").dtype() != DType.INT64) {
            labels = labels.to(ScalarType.Long); // the images' labels pass the transform as int32
          }
          loss += step.run(pixels, labels);
        }
        stepNanos += System.nanoTime() - begin;
        samples += batch.size();
      }
      return new Outcome(
          rank.rank() == 0 ? model.state() : null,
          loss,
          step.steps(),
          samples,
          step.steps(),
          threads,
          stepNanos / 1e9,
          residentBytes());
    }
  }

  /** VmRSS of this process from {@code /proc/self/status}, or -1 where there is none. */
  static long residentBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
