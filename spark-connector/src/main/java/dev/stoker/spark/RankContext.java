package dev.stoker.spark;

import dev.stoker.loader.device.Device;
import dev.stoker.loader.state.LoaderState;
import java.util.List;
import java.util.Optional;
import org.apache.spark.BarrierTaskContext;

/**
 * What a rank knows of itself and its peers, as {@code torch.distributed} tells a DDP process: its
 * rank and the world size, its device and the task's GPU, a way to exchange small values with every
 * other rank ({@link #allGather}, {@link #barrier}) through Spark's barrier task context (about a
 * millisecond a call on one machine), and a fast all-reduce for values exchanged every step ({@link
 * #allReduceMean(float[])}: gradients, metrics) over TCP connections of its own. Every rank must
 * make the same exchanges in the same order. Valid while its {@link RankFunction} runs, on the
 * rank's thread.
 */
public abstract class RankContext {
  /** Made by the runner for each rank; not by users. */
  protected RankContext() {}

  /** This rank: the partition id of its barrier task, 0 .. worldSize - 1. */
  public abstract int rank();

  /** The number of ranks: the tasks of the barrier stage. */
  public abstract int worldSize();

  /** Where the rank's loader delivers batches: its GPU's device, or the CPU. */
  public abstract Device device();

  /** The address of the GPU Spark gave this rank's task, if Spark schedules GPUs. */
  public abstract Optional<String> gpuAddress();

  /** Every GPU address of the task (more than one with spark.task.resource.gpu.amount > 1). */
  public abstract List<String> gpuAddresses();

  /**
   * Sends {@code message} to every rank and returns every rank's message, index = rank. Waits at
   * most {@link SparkOptionNames#COLLECTIVE_TIMEOUT} for the others.
   *
   * @throws IllegalStateException on every rank, if the ranks made different calls (the message
   *     names each rank's); if not every rank called it within the timeout
   */
  public abstract List<String> allGather(String message);

  /** {@link #allGather(String)} for bytes: each rank's bytes, index = rank. */
  public abstract List<byte[]> allGather(byte[] message);

  /** Waits until every rank has called it, as {@link #allGather(String)} does. */
  public abstract void barrier();

  /**
   * Replaces {@code values} with their mean over all ranks and returns it: DDP's gradient
   * averaging. Rank 0 adds the ranks' values in rank order, so every rank gets the same bits. The
   * first collective call connects the ranks (one {@link #allGather}); later calls cost a network
   * round trip. Every rank must call it with an array of the same length, in the same order as its
   * other collective calls.
   *
   * <p>The ranks meet through Spark's barrier channel, which carries a secret drawn for this
   * meeting; only ranks that prove they hold it connect, and every value on the wire is encrypted
   * and authenticated (AES-256-GCM, whatever {@code spark.network.crypto.enabled} says), so a
   * stranger can neither join, read nor change a value.
   *
   * @throws IllegalStateException on every rank, if the ranks' calls or lengths differ (the message
   *     names each rank's); if a peer went away, sent a frame that fails authentication (named with
   *     its address), or sent nothing for {@link SparkOptionNames#COLLECTIVE_TIMEOUT}, which also
   *     bounds the whole meeting
   */
  public abstract float[] allReduceMean(float[] values);

  /** {@link #allReduceMean(float[])}'s sum, without the division: e.g. counts as floats. */
  public abstract float[] allReduceSum(float[] values);

  /** Sums {@code values} over all ranks, in place, as {@link #allReduceMean(float[])} does. */
  public abstract double[] allReduceSum(double[] values);

  /** Sums {@code values} over all ranks, in place (wrapping on overflow, as Java's +). */
  public abstract long[] allReduceSum(long[] values);

  /** Which attempt of the barrier stage this is: 0, then 1, 2, ... when Spark retries it. */
  public abstract int stageAttempt();

  /** Rows of the input in this rank's shard. */
  public abstract long shardRows();

  /** The folder on the executor's disk holding this rank's shard until the rank ends. */
  public abstract String shardFolder();

  /** Spark's context of the rank's task, for what this class does not offer. */
  public abstract BarrierTaskContext taskContext();

  /**
   * Commits where this rank's loader stands (see {@link dev.stoker.loader.DataLoader#position()}):
   * call it on every rank at the same step, once the rank's own checkpoint (the model, the
   * optimizer) covers the batches handed out so far. If the stage fails later, Spark's retry starts
   * every rank's loader at the last state every rank committed, and the driver gets that state in
   * {@link TrainingResult#lastCommitted()}, to start a later run from it on any number of ranks.
   * Costs one round trip to the driver; returns once the driver has the state.
   *
   * @return the state committed
   * @throws UnsupportedOperationException if the run's input is not planned from Parquet files (a
   *     {@code format("stoker")} read or a plain Parquet scan): the rows path's order is not a pure
   *     function of the input
   */
  public LoaderState commit() {
    throw new UnsupportedOperationException("rank " + rank() + ": this context cannot commit");
  }

  /**
   * The state this rank's loader started from: the last state every rank committed before the stage
   * was retried, or the one the run was started from ({@code resumeFrom}); empty for a fresh start.
   * Its epoch is where plain iteration of the loader starts, and that epoch yields only the batches
   * not yet consumed; restore the checkpoint the state was committed with.
   */
  public Optional<LoaderState> resumedFrom() {
    return Optional.empty();
  }
}
