package dev.stoker.examples.cli;

import dev.stoker.examples.demo.DataParallelStep;
import dev.stoker.examples.torch.CnnState;
import dev.stoker.examples.torch.SmallCnn;
import dev.stoker.examples.torch.TorchBatches;
import dev.stoker.examples.torch.TorchNatives;
import dev.stoker.loader.Batch;
import dev.stoker.loader.DataLoader;
import dev.stoker.spark.RankContext;
import dev.stoker.spark.RankFunction;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;

/**
 * What each rank of {@code stoker bench --workload train} runs, in one barrier stage: per repeat,
 * one epoch of the demo's data-parallel CNN step fed by its loader, then as many steps of the same
 * step fed from tensors already in memory (copies of its first batches): the compute-only ceiling,
 * on the same ranks, threads and collective.
 */
final class TrainPass implements RankFunction<TrainPass.Times> {
  private static final long serialVersionUID = 1L;

  /** Batches kept in memory for the ceiling. */
  private static final int KEPT = 8;

  /**
   * One rank's figures, per repeat.
   *
   * @param samples samples per pass (the same for both passes)
   * @param stokerSeconds seconds of the Stoker-fed pass of each repeat
   * @param ceilingSeconds seconds of the in-memory pass of each repeat
   * @param threads the framework's intra-op threads
   */
  record Times(long[] samples, double[] stokerSeconds, double[] ceilingSeconds, int threads)
      implements Serializable {}

  private final int repeats;

  TrainPass(int repeats) {
    this.repeats = repeats;
  }

  @Override
  public Times run(RankContext rank, DataLoader loader) {
    int threads = TorchNatives.useThreads(rank.taskContext().cpus());
    long[] samples = new long[repeats];
    double[] stoker = new double[repeats];
    double[] ceiling = new double[repeats];
    List<Tensor[]> kept = new ArrayList<>();
    try (SmallCnn model = new SmallCnn(CnnState.initial(1), 0.05f, 0.9f)) {
      DataParallelStep step = new DataParallelStep(rank, model, "bench");
      for (int r = 0; r < repeats; r++) {
        long begin = System.nanoTime();
        int steps = 0;
        for (Batch batch : loader.epoch(r)) {
          try (PointerScope scope = new PointerScope()) {
            Tensor pixels = TorchBatches.hostTensor(batch, "pixels");
            Tensor labels = TorchBatches.hostTensor(batch, "label");
            if (kept.size() < KEPT) {
              kept.add(new Tensor[] {keep(pixels.clone()), keep(labels.clone())});
            }
            step.run(pixels, labels);
          }
          samples[r] += batch.size();
          steps++;
        }
        stoker[r] = (System.nanoTime() - begin) / 1e9;
        begin = System.nanoTime();
        for (int s = 0; s < steps; s++) {
          Tensor[] batch = kept.get(s % kept.size());
          try (PointerScope scope = new PointerScope()) {
            step.run(batch[0], batch[1]);
          }
        }
        ceiling[r] = (System.nanoTime() - begin) / 1e9;
      }
    } finally {
      for (Tensor[] batch : kept) {
        batch[0].releaseReference();
        batch[1].releaseReference();
      }
    }
    return new Times(samples, stoker, ceiling, threads);
  }

  /** Keeps a tensor made in a scope past its end (the scope releases one reference). */
  private static Tensor keep(Tensor tensor) {
    tensor.retainReference();
    return tensor;
  }
}
