package dev.stoker.loader.pipeline;

import dev.stoker.loader.BatchLoadException;
import dev.stoker.loader.Stage;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.device.TransferSpec;
import dev.stoker.loader.memory.SlotPool;
import dev.stoker.loader.metrics.EpochCounters;
import java.util.ArrayList;
import java.util.List;

/**
 * A loader's pipeline for its whole life: the slot pool's carriers, the persistent worker crew, the
 * transfer thread with its engine, and every thread they run. {@link #startEpoch} builds one
 * epoch's {@link EpochPipeline}; {@link #close} stops every thread.
 */
public final class LoaderPipeline {
  private final PipelineConfig config;
  private final SlotPool pool;
  private final LoaderThreads threads = new LoaderThreads();
  private final Carriers hostCarriers = new Carriers();
  private final TransferAgent transfer;
  private WorkerCrew persistentCrew;
  private boolean closed;

  /** A pipeline filling slots of {@code pool} and delivering to {@code device}. */
  public LoaderPipeline(PipelineConfig config, SlotPool pool, Device device) {
    this.config = config;
    this.pool = pool;
    this.transfer =
        device.isHost()
            ? null
            : new TransferAgent(
                config.name(),
                device,
                new TransferSpec(config.name(), config.slotBytes(), config.transferDepth()),
                threads);
  }

  PipelineConfig config() {
    return config;
  }

  /**
   * Starts epoch {@code epoch}: its workers begin filling at once.
   *
   * @param batchCount batches in the epoch, or -1 when the source tells at its end
   * @throws BatchLoadException (stage {@code open}) if the epoch could not be started; nothing of
   *     it is left running
   */
  public synchronized EpochPipeline startEpoch(
      int epoch, int batchCount, BatchWriter writer, EpochCounters counters) {
    if (closed) {
      throw new IllegalStateException("the pipeline of loader '" + config.name() + "' is closed");
    }
    int workers = config.numWorkers();
    int slots = pool.maxSlots();
    WorkerCrew crew = null;
    if (workers > 0) {
      crew =
          config.persistentWorkers()
              ? persistentCrew()
              : new WorkerCrew(config.name() + "-e" + epoch, workers, threads);
    }
    String[] names = new String[workers];
    for (int i = 0; i < workers; i++) {
      names[i] = crew.memberName(i);
    }
    long window = Math.max(1, Math.min((long) workers * config.prefetchFactor(), slots));
    int queueCapacity = Math.min(config.prefetchFactor(), slots);
    FillStage fill =
        new FillStage(
            config.name(),
            epoch,
            batchCount,
            writer,
            pool,
            hostCarriers,
            counters,
            names,
            (int) window,
            queueCapacity);
    TransferStage copy =
        transfer == null
            ? null
            : new TransferStage(
                config.name(),
                epoch,
                batchCount,
                fill,
                config.slotBytes(),
                config.transferDepth(),
                counters);
    EpochPipeline pipeline =
        new EpochPipeline(this, epoch, fill, copy, crew, crew != null && crew != persistentCrew);
    boolean crewStarted = false;
    try {
      if (crew != null) {
        crew.start(fill);
        crewStarted = true;
      }
      if (copy != null) {
        transfer.submit(copy);
      }
    } catch (Throwable t) {
      pipeline.startFailed(crewStarted);
      throw BatchLoadException.of(config.name(), Stage.OPEN, epoch, 0, t);
    }
    return pipeline;
  }

  private WorkerCrew persistentCrew() {
    if (persistentCrew == null) {
      persistentCrew = new WorkerCrew(config.name(), config.numWorkers(), threads);
    }
    return persistentCrew;
  }

  void releaseDevice(StagedBatch onDevice) {
    transfer.release(onDevice);
  }

  TransferAgent transferAgent() {
    return transfer;
  }

  void interruptTransfer() {
    transfer.interrupt();
  }

  String describeTransfer() {
    return transfer.describe();
  }

  /** Threads of this loader running now. */
  public List<Thread> threads() {
    return threads.running();
  }

  /**
   * Stops every thread: the persistent workers, the transfer thread (which closes the engine) and
   * any worker still back from an earlier epoch; waits {@code graceNanos}, interrupts, waits again.
   * Safe to call twice.
   *
   * @return the threads still running after that, described; empty when all ended
   */
  public List<String> close(long graceNanos) {
    List<Thread> stopping = new ArrayList<>();
    synchronized (this) {
      closed = true;
      if (persistentCrew != null) {
        stopping.addAll(persistentCrew.shutdown());
      }
      if (transfer != null) {
        Thread thread = transfer.shutdown();
        if (thread != null) {
          stopping.add(thread);
        }
      }
    }
    for (Thread thread : threads.running()) {
      if (!stopping.contains(thread)) {
        stopping.add(thread);
      }
    }
    List<String> stuck = LoaderThreads.stop(stopping, graceNanos);
    hostCarriers.clear(); // a thread still in dataset code holds its batch itself
    return stuck;
  }
}
