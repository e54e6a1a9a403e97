package dev.stoker.loader;

import dev.stoker.loader.device.CpuDevice;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.memory.SlotPool;
import dev.stoker.loader.metrics.BottleneckReport;
import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.loader.pipeline.WorkerGroup;
import dev.stoker.loader.sampler.BatchSampler;
import dev.stoker.loader.sampler.DistributedSampler;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Loads a {@link MapDataset} in fixed-shape batches, with PyTorch DataLoader's options (see
 * {@link LoaderOptions}). {@code loader.epoch(e)} iterates epoch {@code e}; plain iteration runs
 * epochs 0, 1, 2, ... in turn. One epoch runs at a time: starting another one ends the one before
 * (and returns its slots). Iterate from one thread.
 *
 * <p>Closing the loader ends the running epoch, joins every thread and frees every slot; a slot
 * that cannot be recovered is reported as an error naming the loader.
 */
public final class DataLoader implements Iterable<Batch>, AutoCloseable {
  /** How many epochs' metrics a loader keeps. */
  public static final int EPOCHS_KEPT = 100;

  private static final AtomicInteger IDS = new AtomicInteger();

  private final MapDataset dataset;
  private final LoaderOptions options;
  private final Device device;
  private final Placement placement;
  private final String name;
  private final BatchLayout layout;
  private final BatchSampler sampler;
  private final DistributedSampler shard;
  private final SlotBudget budget;
  private final SlotPool pool;
  private final List<EpochMetrics> finished = new ArrayList<>();
  private final ThreadLocal<SampleWriter> writers;
  private WorkerGroup persistentWorkers;
  /** The iterator opened last; it may still hold the batch it returned last. */
  private BatchIterator current;
  private int nextEpoch;
  private boolean closed;

  /** A loader on the CPU device. */
  public DataLoader(MapDataset dataset, LoaderOptions options) {
    this(dataset, options, Placement.SINGLE, CpuDevice.INSTANCE);
  }

  /** A loader of rank {@code placement}'s shard, on the CPU device. */
  public DataLoader(MapDataset dataset, LoaderOptions options, Placement placement) {
    this(dataset, options, placement, CpuDevice.INSTANCE);
  }

  /** A loader delivering to {@code device}, which the caller keeps and closes. */
  public DataLoader(MapDataset dataset, LoaderOptions options, Device device) {
    this(dataset, options, Placement.SINGLE, device);
  }

  /** A loader of {@code placement}'s shard delivering to {@code device}, which the caller keeps. */
  public DataLoader(MapDataset dataset, LoaderOptions options, Placement placement,
      Device device) {
    this.dataset = Objects.requireNonNull(dataset, "dataset");
    this.options = Objects.requireNonNull(options, "options");
    this.device = Objects.requireNonNull(device, "device");
    this.placement = Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(dataset.schema(), "dataset.schema()");
    this.name = options.name() != null ? options.name() : "stoker-" + IDS.incrementAndGet();
    this.layout = new BatchLayout(dataset.schema(), options.batchSize());
    this.shard = new DistributedSampler(dataset.size(), placement.rank(), placement.worldSize(),
        options.shuffle(), options.seed(), options.dropLast());
    this.sampler = new BatchSampler(shard, options.batchSize(), options.dropLast());
    this.budget = SlotBudget.of(options, layout, !device.isHost());
    this.pool = new SlotPool(name, device.hostAllocator(options.pinMemory()), layout.slotBytes(),
        budget.allowed());
    BatchLayout batchLayout = layout;
    this.writers = ThreadLocal.withInitial(() -> new SampleWriter(batchLayout));
  }

  public String name() {
    return name;
  }

  public LoaderOptions options() {
    return options;
  }

  public MapDataset dataset() {
    return dataset;
  }

  public Device device() {
    return device;
  }

  public BatchLayout layout() {
    return layout;
  }

  /** Batches every epoch yields on this rank (the same on every rank). */
  public int batchesPerEpoch() {
    return sampler.batchCount();
  }

  /** Rows of this rank's share that {@code dropLast} drops per epoch: its short last batch. */
  public long droppedRows() {
    return sampler.droppedSamples();
  }

  /**
   * Rows of the dataset no batch holds in an epoch, over all ranks: the rows left over when the
   * dataset is split evenly across ranks, plus every rank's short last batch. Zero without
   * {@code dropLast} (the shares are then padded instead, as PyTorch's DistributedSampler does).
   */
  public long droppedRowsAllRanks() {
    long tails = (long) sampler.droppedSamples() * placement.worldSize();
    return tails + shard.droppedCount();
  }

  /** The batches of epoch {@code epoch}. */
  public EpochIterable epoch(int epoch) {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= 0)");
    }
    return () -> open(epoch);
  }

  /** Runs the next epoch: 0 on the first call, then 1, 2, ... */
  @Override
  public synchronized BatchIterator iterator() {
    return open(nextEpoch++);
  }

  private synchronized BatchIterator open(int epoch) {
    checkOpen();
    if (current != null) {
      current.close();
    }
    WorkerGroup workers = workersFor(epoch);
    current = new BatchIterator(this, sampler.epoch(epoch), pool, workers,
        !options.persistentWorkers(), budget.allowed());
    return current;
  }

  private WorkerGroup workersFor(int epoch) {
    if (options.numWorkers() == 0 || sampler.batchCount() == 0) {
      return null;
    }
    if (!options.persistentWorkers()) {
      return new WorkerGroup(name + "-e" + epoch, options.numWorkers());
    }
    if (persistentWorkers == null) {
      persistentWorkers = new WorkerGroup(name, options.numWorkers());
    }
    return persistentWorkers;
  }

  /** Called by an iterator when its epoch ends or is closed. */
  synchronized void epochEnded(EpochMetrics metrics) {
    finished.add(metrics);
    if (finished.size() > EPOCHS_KEPT) {
      finished.remove(0);
    }
    if (options.numWorkers() > 0 && !options.persistentWorkers()) {
      pool.trim(); // slots live across epochs only with persistent workers
    }
  }

  /** Every epoch so far, the running one included. */
  public synchronized LoaderMetrics metrics() {
    List<EpochMetrics> epochs = new ArrayList<>(finished);
    if (current != null && !current.hasEnded()) {
      epochs.add(current.metrics());
    }
    return new LoaderMetrics(name, epochs);
  }

  /** The bottleneck report of the last epoch (or of the running one so far). */
  public BottleneckReport report() {
    EpochMetrics last = metrics().last();
    if (last == null) {
      throw new IllegalStateException("loader '" + name + "' has run no epoch yet");
    }
    return BottleneckReport.of(last);
  }

  /** Slots of this loader's pool currently out (in flight or held by the consumer). */
  public int slotsOut() {
    return pool.outstanding();
  }

  SlotPool pool() {
    return pool;
  }

  /** Each loading thread's sample writer, reused across epochs. */
  ThreadLocal<SampleWriter> writers() {
    return writers;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("loader '" + name + "' is closed");
    }
  }

  /**
   * Ends the running epoch, stops every thread and frees every slot. Safe to call twice.
   *
   * @throws IllegalStateException if a slot could not be recovered (a worker stuck in dataset code)
   */
  @Override
  public void close() {
    BatchIterator running;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      running = current;
    }
    RuntimeException failure = null;
    try {
      if (running != null) {
        running.close();
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      if (persistentWorkers != null) {
        persistentWorkers.close();
      }
    } catch (RuntimeException e) {
      failure = addTo(failure, e);
    }
    try {
      pool.close();
    } catch (RuntimeException e) {
      failure = addTo(failure, e);
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static RuntimeException addTo(RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  @Override
  public String toString() {
    return "DataLoader[" + name + ", " + dataset.size() + " samples, " + options + "]";
  }
}
