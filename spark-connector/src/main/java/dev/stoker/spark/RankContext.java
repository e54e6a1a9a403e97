package dev.stoker.spark;

import dev.stoker.loader.device.Device;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.apache.spark.BarrierTaskContext;

/**
 * What a rank knows of itself and its peers, as {@code torch.distributed} tells a DDP process:
 * its rank and the world size, its device and the task's GPU, and a way to exchange small values
 * with every other rank ({@link #allGather}, {@link #barrier}) through Spark's barrier task
 * context. Every rank must make the same exchanges in the same order. Valid while its
 * {@link RankFunction} runs, on the rank's thread.
 */
public final class RankContext {
  private final BarrierTaskContext task;
  private final int rank;
  private final int worldSize;
  private final Device device;
  private final List<String> gpuAddresses;
  private final long shardRows;
  private final String shardFolder;

  RankContext(BarrierTaskContext task, Device device, List<String> gpuAddresses, long shardRows,
      String shardFolder) {
    this.task = task;
    this.rank = task.partitionId();
    this.worldSize = task.numPartitions();
    this.device = device;
    this.gpuAddresses = List.copyOf(gpuAddresses);
    this.shardRows = shardRows;
    this.shardFolder = shardFolder;
  }

  /** This rank: the partition id of its barrier task, 0 .. worldSize - 1. */
  public int rank() {
    return rank;
  }

  /** The number of ranks: the tasks of the barrier stage. */
  public int worldSize() {
    return worldSize;
  }

  /** Where the rank's loader delivers batches: its GPU's device, or the CPU. */
  public Device device() {
    return device;
  }

  /** The address of the GPU Spark gave this rank's task, if Spark schedules GPUs. */
  public Optional<String> gpuAddress() {
    return gpuAddresses.isEmpty() ? Optional.empty() : Optional.of(gpuAddresses.get(0));
  }

  /** Every GPU address of the task (more than one with spark.task.resource.gpu.amount > 1). */
  public List<String> gpuAddresses() {
    return gpuAddresses;
  }

  /** Sends {@code message} to every rank and returns every rank's message, index = rank. */
  public List<String> allGather(String message) {
    return List.of(task.allGather(message));
  }

  /** {@link #allGather(String)} for bytes: each rank's bytes, index = rank. */
  public List<byte[]> allGather(byte[] message) {
    String[] all = task.allGather(Base64.getEncoder().encodeToString(message));
    List<byte[]> bytes = new ArrayList<>(all.length);
    for (String one : all) {
      bytes.add(Base64.getDecoder().decode(one.getBytes(StandardCharsets.US_ASCII)));
    }
    return bytes;
  }

  /** Waits until every rank has called it. */
  public void barrier() {
    task.barrier();
  }

  /** Which attempt of the barrier stage this is: 0, then 1, 2, ... when Spark retries it. */
  public int stageAttempt() {
    return task.stageAttemptNumber();
  }

  /** Rows of the input in this rank's shard. */
  public long shardRows() {
    return shardRows;
  }

  /** The folder on the executor's disk holding this rank's shard until the rank ends. */
  public String shardFolder() {
    return shardFolder;
  }

  /** Spark's context of the rank's task, for what this class does not offer. */
  public BarrierTaskContext taskContext() {
    return task;
  }

  @Override
  public String toString() {
    return "rank " + rank + " of " + worldSize + " on " + device.name()
        + gpuAddress().map(a -> " (gpu " + a + ")").orElse("");
  }
}
