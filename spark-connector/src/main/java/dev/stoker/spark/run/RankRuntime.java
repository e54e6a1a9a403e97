package dev.stoker.spark.run;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.device.CpuDevice;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.metrics.BottleneckReport;
import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.loader.util.Closer;
import dev.stoker.spark.CacheMode;
import dev.stoker.spark.RankFailedException;
import dev.stoker.spark.RankReport;
import dev.stoker.spark.SparkOptionNames;
import dev.stoker.spark.cluster.RankLaunch;
import dev.stoker.spark.parquet.EpochPlanner;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.RowErrors;
import dev.stoker.spark.parquet.UnreadableInputException;
import dev.stoker.spark.progress.LoaderTotals;
import dev.stoker.spark.progress.ProgressWatcher;
import dev.stoker.spark.rows.BadRowException;
import dev.stoker.spark.run.balance.RankSizing;
import dev.stoker.spark.shard.MappedShard;
import dev.stoker.spark.shard.ShardBudgetException;
import dev.stoker.spark.shard.ShardChangedException;
import dev.stoker.spark.shard.ShardFiles;
import dev.stoker.spark.shard.ShardLayout;
import dev.stoker.spark.shard.ShardWriter;
import dev.stoker.spark.ui.RankFigures;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.resource.ResourceInformation;
import org.apache.spark.util.TaskCompletionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rank, in its barrier task: reads its rows into a shard on the executor's local disk, tells
 * the other ranks what it holds, then runs the rank function with a loader over the shard and
 * cleans up. The files go when the rank ends, whatever way (also through the task's completion
 * listener, on failure and kill). A finished rank waits in a last barrier for the others, so that
 * no rank's output counts unless all of them finished: Spark then retries the stage as a whole.
 */
public final class RankRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(RankRuntime.class);

  private final RankSpec spec;
  private final ShardSource source;

  RankRuntime(RankSpec spec, ShardSource source) {
    this.spec = spec;
    this.source = source;
  }

  /**
   * A streaming rank: its loader reads its {@code runs} of {@code plan} straight from the Parquet
   * files, writing the shard cache as {@code spec}'s {@code cache} option says. The ranks agree
   * first that each could start (a cache folder that {@code cache=disk} needs and cannot make stops
   * every rank alike).
   */
  RankOutcome runPlanned(ReadConfig config, ReadPlan plan, RankRuns runs, EpochPlanner epochs) {
    BarrierTaskContext task = BarrierTaskContext.get();
    int rank = task.partitionId();
    if (task.numPartitions() != spec.worldSize || runs.rank() != rank) {
      throw new IllegalStateException(
          "barrier stage of "
              + task.numPartitions()
              + " tasks for worldSize "
              + spec.worldSize
              + ": task "
              + rank
              + " was given the runs "
              + "of rank "
              + runs.rank());
    }
    requireEveryRank(task, spec.worldSize);
    // Token rows are made in the loader from the documents as stored, as a transform's samples.
    boolean transformed = config.transforms() != null || config.tokens() != null;
    PlannedDataset.Parts parts;
    try {
      parts =
          transformed
              ? PlannedDataset.Parts.transformed(config)
              : PlannedDataset.Parts.of(
                  config.columns(), spec.layout().schema().fields(), spec.normalizations);
    } catch (IllegalArgumentException e) {
      return RankOutcome.refused(rank, e.getMessage());
    }
    // A transform's output differs every epoch (its random crops), and so do a rank's rows when
    // every epoch is planned again: nothing is cached, and every epoch streams from the files.
    RankCache cache =
        new RankCache(
            transformed || epochs != null ? CacheMode.NONE : spec.run.cache(),
            spec.run.epochs(),
            plan.rowsPerRank(),
            (int) Math.min(config.windowRows(), Math.max(1, plan.rowsPerRank())),
            new ShardLayout(transformed ? config.batchSchema() : config.loaderSchema()),
            spec.run.maxShardBytes(),
            MemoryTier.budget(spec.run.cacheMemory()),
            "rank " + rank,
            inMemory -> createFiles(task, rank, inMemory));
    task.addTaskCompletionListener((TaskCompletionListener) context -> closeQuietly(cache));
    CommitLog.Start start = null;
    if (spec.commits != null) {
      try {
        start = CommitClient.start(spec.commits, rank, task.stageAttemptNumber());
      } catch (IOException e) {
        throw failed(task, "asking the driver where its loader starts failed", e);
      }
    }
    return train(
        task, new PlannedRank(config, plan, runs, epochs, spec.worldSize, parts, cache, start));
  }

  RankOutcome run() {
    BarrierTaskContext task = BarrierTaskContext.get();
    int rank = task.partitionId();
    if (task.numPartitions() != spec.worldSize) {
      throw new IllegalStateException(
          "barrier stage of " + task.numPartitions() + " tasks for worldSize " + spec.worldSize);
    }
    requireEveryRank(task, spec.worldSize);
    ShardFiles files = null;
    MappedShard shard = null;
    String status = null;
    long start = System.nanoTime();
    try {
      files = createFiles(task, rank);
    } catch (IOException e) {
      // The same on every attempt on this host: refused at once, as a bad row is.
      status =
          RankStatus.bad(
              String.format(
                  "rank %d of %d: creating its shard folder in %s "
                      + "failed: %s (expected: a writable folder on a local disk; set %s to one)",
                  rank,
                  spec.worldSize,
                  LocalDirs.forRank(spec.run.shardDir(), rank),
                  e,
                  SparkOptionNames.SHARD_DIR));
    }
    if (files != null) {
      ShardFiles owned = files;
      task.addTaskCompletionListener((TaskCompletionListener) context -> deleteQuietly(owned));
      try (ShardWriter writer =
          new ShardWriter(files, spec.layout(), spec.run.maxShardBytes(), "rank " + rank)) {
        long rows = source.fill(writer, task, spec.counters.rowsLoaded());
        shard = writer.map(rows);
        status = RankStatus.ok(rows);
      } catch (BadRowException | ShardBudgetException e) {
        status = RankStatus.bad(e.getMessage());
      } catch (IOException e) {
        throw failed(task, "reading its rows into the shard in " + files + " failed", e);
      }
    }
    double shardSeconds = (System.nanoTime() - start) / 1e9;
    RankStatus all =
        RankStatus.of(
            BarrierSync.of(task).allGather("the ranks' shard status", status, Duration.ZERO, ""));
    String refusal = null;
    if (!all.problems().isEmpty()) {
      refusal = String.join("; ", all.problems());
    } else if (source.inPlace() && !all.balanced()) {
      discard(shard, files);
      return RankOutcome.unbalanced(rank, all.rows()[rank]);
    }
    RankSizing sizing = null;
    if (refusal == null) {
      try {
        sizing = RankSizing.of(all.rows(), spec.options().batchSize(), spec.options().dropLast());
      } catch (IllegalArgumentException e) {
        refusal = e.getMessage();
      }
    }
    if (refusal != null) {
      discard(shard, files);
      return RankOutcome.refused(rank, refusal);
    }
    return train(
        task, new ShardRank(shard, files, sizing, rank, spec.normalizations, shardSeconds));
  }

  private RankOutcome train(BarrierTaskContext task, RankData data) {
    int rank = task.partitionId();
    List<String> gpus = gpuAddresses(task);
    Session session = new Session();
    Object result = null;
    Closer closer = new Closer();
    try {
      result = session.run(task, data, gpus);
    } catch (Throwable t) {
      closer.add(t);
    }
    session.close(closer, data);
    MappedShard shard = data.shard();
    ShardChangedException shardChanged =
        shard == null ? null : shardChanged(closer.failure(), shard, 0);
    if (shardChanged == null && shard != null) {
      shardChanged = shard.changed(); // samples skipped: the rank read less than its shard
    }
    closer.run(data::delete);
    task.killTaskIfInterrupted();
    if (shardChanged != null) {
      throw failed(task, "reading its shard failed", shardChanged.alone());
    }
    if (closer.failure() != null) {
      InputFaultException fault = inputFault(task, closer.failure());
      if (fault != null) {
        throw fault;
      }
      throw failed(task, "failed", closer.failure());
    }
    RankReport report = report(task, data, session.device, gpus, session.watcher.totals());
    RankOutcome outcome;
    try {
      outcome = RankOutcome.done(rank, ResultCodec.encode(result), report);
    } catch (Exception e) { // the serializer may throw a checked NotSerializableException
      String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
      outcome =
          RankOutcome.refused(
              rank,
              "rank "
                  + rank
                  + ": its result ("
                  + result.getClass().getName()
                  + ") cannot be sent to the driver: "
                  + e.getClass().getName()
                  + ": "
                  + why
                  + " (expected: a serializable result, e.g. numbers, strings, arrays or records)");
    }
    outcome.figures = session.watcher.figures();
    // No rank's task ends before every rank's function has returned: had one ended and another
    // then failed, Spark could keep the ended task's output and retry the failed one alone,
    // whose barrier calls would then wait for a rank that never comes.
    BarrierSync.of(task).barrier("the end of its rank function", Duration.ZERO, "");
    return outcome;
  }

  /** The rank's device, loader and watcher while its function runs, closed in reverse order. */
  private final class Session {
    private Device device;
    private DataLoader loader;
    private ProgressWatcher watcher;
    private BarrierRankContext context;

    Object run(BarrierTaskContext task, RankData data, List<String> gpus) throws Exception {
      int rank = task.partitionId();
      device = gpus.isEmpty() ? CpuDevice.INSTANCE : openDevice(gpus.get(0));
      String name =
          (spec.options().name() != null ? spec.options().name() : "stoker") + "-rank" + rank;
      LoaderOptions options = spec.options().toBuilder().name(name).build();
      loader = data.loader(options, device);
      watcher =
          new ProgressWatcher(
              name,
              loader,
              spec.counters,
              task,
              spec.run.progressInterval().toNanos(),
              new RankFigures(
                  rank,
                  SparkEnv.get().executorId(),
                  null,
                  device.name(),
                  gpus.isEmpty() ? null : gpus.get(0),
                  0,
                  0,
                  data.batchesPerEpoch(),
                  spec.run.epochs(),
                  0,
                  0,
                  0,
                  0,
                  0,
                  0,
                  0,
                  0,
                  0,
                  options.numWorkers(),
                  data.droppedRows(),
                  0,
                  null,
                  null,
                  false),
              data::storageWaitNanos);
      context =
          new BarrierRankContext(
              task, device, gpus, data.rows(), data.folder(), spec.run.collectiveTimeout());
      context.resumable(loader, spec.commits, data.resumedFrom(), options);
      return spec.function.run(context, loader);
    }

    /**
     * Closes what was opened, the connections to the peers first; lets go of the rank's data only
     * once no loader thread can read it.
     */
    void close(Closer closer, RankData data) {
      if (context != null) {
        closer.run(context::close);
      }
      boolean readersGone = loader == null;
      if (loader != null) {
        try {
          loader.close();
          readersGone = true;
        } catch (Throwable t) {
          closer.add(t);
        }
      }
      if (watcher != null) {
        closer.run(watcher::close);
      }
      if (device != null) {
        closer.run(device::close);
      }
      if (readersGone) {
        closer.run(data::release);
      }
    }
  }

  private Device openDevice(String gpuAddress) {
    try {
      Device device = spec.devices.open(gpuAddress);
      if (device == null) {
        throw new IllegalStateException("the device factory returned null");
      }
      return device;
    } catch (Exception e) {
      throw new IllegalStateException(
          "opening the device of GPU '"
              + gpuAddress
              + "' with "
              + spec.devices.getClass().getName()
              + " failed: "
              + e,
          e);
    }
  }

  private RankReport report(
      BarrierTaskContext task,
      RankData data,
      Device device,
      List<String> gpus,
      LoaderTotals totals) {
    int rank = task.partitionId();
    EpochMetrics last = totals.last();
    BottleneckReport verdict = last == null ? null : BottleneckReport.of(last);
    return new RankReport(
        rank,
        data.rows(),
        data.samples(),
        data.droppedRows(),
        data.paddedRows(),
        totals.skippedSamples(),
        data.batchesPerEpoch(),
        totals.epochs(),
        totals.batches(),
        totals.samplesPerSecond(),
        last == null ? 0 : last.waitFraction(),
        verdict == null ? null : verdict.verdict().label(),
        verdict == null ? null : verdict.summary(),
        device.name(),
        gpus.isEmpty() ? null : gpus.get(0),
        SparkEnv.get().executorId(),
        data.folder(),
        data.bytes(),
        data.seconds(),
        task.stageAttemptNumber());
  }

  private static List<String> gpuAddresses(BarrierTaskContext task) {
    ResourceInformation gpu = task.resourcesJMap().get("gpu");
    return gpu == null ? List.of() : List.of(gpu.addresses());
  }

  /** A new shard folder, once the shards of dead processes on this host are gone. */
  private ShardFiles createFiles(BarrierTaskContext task, int rank) throws IOException {
    return createFiles(task, rank, false);
  }

  /** A new shard folder of rank {@code rank}: in memory, or where {@code shardDir} says. */
  private ShardFiles createFiles(BarrierTaskContext task, int rank, boolean inMemory)
      throws IOException {
    try {
      for (Path stale : LocalDirs.sweep(spec.run.shardDir())) {
        LOG.info("stoker: removed {}, the shard of a process that died", stale);
      }
    } catch (RuntimeException e) { // cleaning up after others never stops this rank
      LOG.warn("stoker: looking for the shards of dead processes failed", e);
    }
    Path parent = inMemory ? MemoryTier.root() : LocalDirs.forRank(spec.run.shardDir(), rank);
    String name =
        String.format(
            "%sstage%d.%d-rank%d-task%d-%08x",
            ShardFiles.PREFIX,
            task.stageId(),
            task.stageAttemptNumber(),
            rank,
            task.taskAttemptId(),
            ThreadLocalRandom.current().nextInt());
    return ShardFiles.create(parent, name);
  }

  private static void deleteQuietly(ShardFiles files) {
    try {
      files.delete();
    } catch (RuntimeException e) {
      LOG.warn("stoker: shard folder {} could not be removed", files, e);
    }
  }

  private static void closeQuietly(RankCache cache) {
    try {
      cache.deleteFiles();
    } catch (RuntimeException e) {
      LOG.warn("stoker: shard cache could not be removed", e);
    }
  }

  /** Lets go of a shard no loader has read. */
  private static void discard(MappedShard shard, ShardFiles files) {
    if (shard != null) {
      shard.release();
    }
    if (files != null) {
      files.delete();
    }
  }

  /**
   * What a failed read of the mapped shard in {@code failure} (its causes or what they suppressed)
   * says: the dataset's own report, or the JVM's fault (an {@code InternalError}, wherever the JVM
   * delivered it: a loader thread, the rank function) turned into the shard's report. Null if there
   * is none. Spark would end the executor for an {@code InternalError} among the causes.
   */
  private static ShardChangedException shardChanged(
      Throwable failure, MappedShard shard, int depth) {
    if (failure == null || depth > 20) {
      return null;
    }
    if (failure instanceof ShardChangedException changed) {
      return changed;
    }
    if (MappedShard.isMappedFault(failure)) {
      return shard.faulted(failure);
    }
    for (Throwable suppressed : failure.getSuppressed()) {
      ShardChangedException changed = shardChanged(suppressed, shard, depth + 1);
      if (changed != null) {
        return changed;
      }
    }
    return failure.getCause() == failure
        ? null
        : shardChanged(failure.getCause(), shard, depth + 1);
  }

  /**
   * The input's own fault in {@code failure} (its causes or what they suppressed), which a retry
   * would meet again: a bad row, or a file that failed to decode the same way twice; else null.
   */
  private InputFaultException inputFault(BarrierTaskContext task, Throwable failure) {
    Throwable found = find(failure, 0);
    if (found == null) {
      return null;
    }
    String message =
        found instanceof UnreadableInputException
            ? String.format(
                "rank %d of %d: its input failed the same way when read again, so a "
                    + "retry cannot help: %s (expected: input files that can be read; replace the "
                    + "damaged file or leave it out of the input)",
                task.partitionId(), spec.worldSize, found.getMessage())
            : found.getMessage();
    return new InputFaultException(message, failure);
  }

  private static Throwable find(Throwable failure, int depth) {
    if (failure == null || depth > 20) {
      return null;
    }
    if (failure instanceof UnreadableInputException
        || failure instanceof RowErrors.BadRow
        || failure instanceof BadRowException) {
      return failure;
    }
    for (Throwable suppressed : failure.getSuppressed()) {
      Throwable found = find(suppressed, depth + 1);
      if (found != null) {
        return found;
      }
    }
    return failure.getCause() == failure ? null : find(failure.getCause(), depth + 1);
  }

  private RuntimeException failed(BarrierTaskContext task, String what, Throwable cause) {
    if (cause instanceof Error error) {
      throw error;
    }
    return new RankFailedException(
        String.format(
            "rank %d of %d (stage attempt %d): %s: %s",
            task.partitionId(), spec.worldSize, task.stageAttemptNumber(), what, cause),
        cause);
  }

  /**
   * Fails this rank when Spark started its stage's attempt without every rank ({@link RankLaunch}).
   */
  private static void requireEveryRank(BarrierTaskContext task, int worldSize) {
    String refusal = RankLaunch.refusal(task, worldSize);
    if (refusal != null) {
      throw new RankFailedException(refusal, null);
    }
  }
}
