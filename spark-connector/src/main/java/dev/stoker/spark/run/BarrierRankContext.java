package dev.stoker.spark.run;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.RankContext;
import dev.stoker.spark.SparkOptionNames;
import dev.stoker.spark.collective.Collective;
import dev.stoker.spark.collective.Waits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkEnv;

/** A rank's {@link RankContext} in its barrier task; closed by the runner when the rank ends. */
final class BarrierRankContext extends RankContext {
  private final BarrierTaskContext task;
  private final int rank;
  private final int worldSize;
  private final Device device;
  private final List<String> gpuAddresses;
  private final long shardRows;
  private final String shardFolder;
  private final Duration collectiveTimeout;
  private Collective collective;
  private RuntimeException collectiveFailure;
  private boolean closed;
  private DataLoader loader;
  private CommitEndpoint commits;
  private LoaderState resumed;
  private LoaderOptions options;

  BarrierRankContext(
      BarrierTaskContext task,
      Device device,
      List<String> gpuAddresses,
      long shardRows,
      String shardFolder,
      Duration collectiveTimeout) {
    this.task = task;
    this.rank = task.partitionId();
    this.worldSize = task.numPartitions();
    this.device = device;
    this.gpuAddresses = List.copyOf(gpuAddresses);
    this.shardRows = shardRows;
    this.shardFolder = shardFolder;
    this.collectiveTimeout = collectiveTimeout;
  }

  /** This rank: the partition id of its barrier task, 0 .. worldSize - 1. */
  @Override
  public int rank() {
    return rank;
  }

  /** The number of ranks: the tasks of the barrier stage. */
  @Override
  public int worldSize() {
    return worldSize;
  }

  /** Where the rank's loader delivers batches: its GPU's device, or the CPU. */
  @Override
  public Device device() {
    return device;
  }

  /** The address of the GPU Spark gave this rank's task, if Spark schedules GPUs. */
  @Override
  public Optional<String> gpuAddress() {
    return gpuAddresses.isEmpty() ? Optional.empty() : Optional.of(gpuAddresses.get(0));
  }

  /** Every GPU address of the task (more than one with spark.task.resource.gpu.amount > 1). */
  @Override
  public List<String> gpuAddresses() {
    return gpuAddresses;
  }

  /**
   * Sends {@code message} to every rank and returns every rank's message, index = rank. Waits at
   * most {@link SparkOptionNames#COLLECTIVE_TIMEOUT} for the others.
   *
   * @throws IllegalStateException on every rank, if the ranks made different calls (the message
   *     names each rank's); if not every rank called it within the timeout
   */
  @Override
  public List<String> allGather(String message) {
    return List.of(exchange("allGather(String)", message));
  }

  /** {@link #allGather(String)} for bytes: each rank's bytes, index = rank. */
  @Override
  public List<byte[]> allGather(byte[] message) {
    String[] all = exchange("allGather(byte[])", Base64.getEncoder().encodeToString(message));
    List<byte[]> bytes = new ArrayList<>(all.length);
    for (String one : all) {
      bytes.add(Base64.getDecoder().decode(one.getBytes(StandardCharsets.US_ASCII)));
    }
    return bytes;
  }

  /** Waits until every rank has called it, as {@link #allGather(String)} does. */
  @Override
  public void barrier() {
    exchange("barrier()", "");
  }

  private String[] exchange(String call, String message) {
    return BarrierSync.of(task)
        .allGather(call, message, collectiveTimeout, SparkOptionNames.COLLECTIVE_TIMEOUT);
  }

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
  @Override
  public float[] allReduceMean(float[] values) {
    return collective().allReduceMean(values);
  }

  /** {@link #allReduceMean(float[])}'s sum, without the division: e.g. counts as floats. */
  @Override
  public float[] allReduceSum(float[] values) {
    return collective().allReduceSum(values);
  }

  /** Sums {@code values} over all ranks, in place, as {@link #allReduceMean(float[])} does. */
  @Override
  public double[] allReduceSum(double[] values) {
    return collective().allReduceSum(values);
  }

  /** Sums {@code values} over all ranks, in place (wrapping on overflow, as Java's +). */
  @Override
  public long[] allReduceSum(long[] values) {
    return collective().allReduceSum(values);
  }

  private synchronized Collective collective() {
    if (collectiveFailure != null) {
      throw new IllegalStateException(
          "rank "
              + rank
              + ": connecting the ranks failed earlier: "
              + collectiveFailure.getMessage(),
          collectiveFailure);
    }
    if (closed) {
      throw new IllegalStateException(
          "rank "
              + rank
              + ": its context is closed (expected: "
              + "collective calls only while the rank function runs)");
    }
    if (collective == null) {
      try {
        SparkEnv env = SparkEnv.get();
        collective =
            worldSize == 1
                ? Collective.single()
                : Collective.connect(
                    rank,
                    worldSize,
                    task.stageAttemptNumber(),
                    CollectiveSetup.listenOn(env),
                    message -> exchange("the first all-reduce, which connects the ranks", message),
                    new Waits(
                        collectiveTimeout,
                        SparkOptionNames.COLLECTIVE_TIMEOUT,
                        task::killTaskIfInterrupted));
      } catch (RuntimeException e) {
        collectiveFailure = e;
        throw e;
      }
    }
    return collective;
  }

  /** Closes the rank's connections to its peers, if it made any: when the rank ends. */
  synchronized void close() {
    closed = true;
    if (collective != null) {
      collective.close();
    }
  }

  /**
   * What {@link #commit()} needs: the rank's loader and its options, the driver's commit server
   * (null: the rows path, which cannot commit) and the state the loader started from (or null).
   */
  void resumable(
      DataLoader loader, CommitEndpoint commits, LoaderState resumed, LoaderOptions options) {
    this.loader = loader;
    this.commits = commits;
    this.resumed = resumed;
    this.options = options;
  }

  @Override
  public synchronized LoaderState commit() {
    if (commits == null) {
      throw new UnsupportedOperationException(
          "rank "
              + rank
              + ": commit() needs a run over "
              + "Parquet files (a format(\"stoker\") read or a plain Parquet scan), whose order is "
              + "a pure function of the files; this run's rows came through Spark's rows path, "
              + "whose order in a rank's shard is not");
    }
    if (closed) {
      throw new IllegalStateException(
          "rank "
              + rank
              + ": its context is closed (expected: "
              + "commit() only while the rank function runs)");
    }
    DataLoader.Position position = loader.position();
    LoaderState base =
        resumed != null && position.epoch() == resumed.epoch()
            ? resumed.resumedOn(worldSize)
            : commits.startOf(position.epoch(), worldSize, options);
    LoaderState state = base.plusBatches(position.batches());
    try {
      CommitClient.commit(commits, rank, task.stageAttemptNumber(), state);
    } catch (IOException e) {
      throw new IllegalStateException(
          "rank "
              + rank
              + ": committing "
              + state.describe()
              + " to the driver at "
              + commits.host()
              + ":"
              + commits.port()
              + " failed: "
              + e,
          e);
    }
    return state;
  }

  @Override
  public Optional<LoaderState> resumedFrom() {
    return Optional.ofNullable(resumed);
  }

  /** Which attempt of the barrier stage this is: 0, then 1, 2, ... when Spark retries it. */
  @Override
  public int stageAttempt() {
    return task.stageAttemptNumber();
  }

  /** Rows of the input in this rank's shard. */
  @Override
  public long shardRows() {
    return shardRows;
  }

  /** The folder on the executor's disk holding this rank's shard until the rank ends. */
  @Override
  public String shardFolder() {
    return shardFolder;
  }

  /** Spark's context of the rank's task, for what this class does not offer. */
  @Override
  public BarrierTaskContext taskContext() {
    return task;
  }

  @Override
  public String toString() {
    return "rank "
        + rank
        + " of "
        + worldSize
        + " on "
        + device.name()
        + gpuAddress().map(a -> " (gpu " + a + ")").orElse("");
  }
}
