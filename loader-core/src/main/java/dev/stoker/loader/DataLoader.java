package dev.stoker.loader;

import dev.stoker.loader.device.CpuDevice;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.SlotBudget;
import dev.stoker.loader.memory.SlotPool;
import dev.stoker.loader.metrics.BottleneckReport;
import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.loader.metrics.LoaderMetrics;
import dev.stoker.loader.pipeline.EpochPipeline;
import dev.stoker.loader.pipeline.LoaderPipeline;
import dev.stoker.loader.pipeline.PipelineConfig;
import dev.stoker.loader.state.InputFingerprint;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.util.Closer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Loads a dataset in fixed-shape batches, with PyTorch DataLoader's options (see {@link
 * LoaderOptions}), from either kind of source: a {@link MapDataset} read by index in the samplers'
 * order, or a {@link StreamedDataset} of column chunks. {@code loader.epoch(e)} iterates epoch
 * {@code e}; plain iteration runs epochs 0, 1, 2, ... in turn. One epoch runs at a time: starting
 * another one ends the one before (and returns its slots). Iterate from one thread.
 *
 * <p>The host slots, their allocator, the worker threads (with {@code persistentWorkers}) and the
 * transfer thread belong to the loader for its whole life. Closing the loader, from any thread and
 * any number of times, ends the running epoch, stops every thread and frees every slot; it returns
 * once all that is done, or reports a thread stuck in dataset code.
 */
public final class DataLoader implements Iterable<Batch>, AutoCloseable {
  /** How long closing the loader waits for its threads before interrupting them. */
  private static final long CLOSE_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

  private static final AtomicInteger IDS = new AtomicInteger();

  private final LoaderOptions options;
  private final Placement placement;
  private final Device device;
  private final String name;
  private final BatchLayout layout;
  private final LoaderSource source;
  private final SlotBudget budget;
  private final HostAllocator allocator;
  private final boolean ownsAllocator;
  private final SlotPool pool;
  private final LoaderPipeline pipeline;
  private final InputFingerprint input;
  private final List<EpochMetrics> finished = new ArrayList<>();
  private final Object closeLock = new Object();

  /** The iterator opened last; it may still hold the batch it returned last. */
  private BatchIterator current;

  private int nextEpoch;
  private boolean closed;
  private boolean closeDone;

  /** A loader of the whole dataset on the CPU device. */
  public DataLoader(MapDataset dataset, LoaderOptions options) {
    this(builder(dataset).options(options));
  }

  /** A loader of {@code placement}'s shard, on the CPU device. */
  public DataLoader(MapDataset dataset, LoaderOptions options, Placement placement) {
    this(builder(dataset).options(options).placement(placement));
  }

  /** A loader delivering to {@code device}, which the caller keeps and closes. */
  public DataLoader(MapDataset dataset, LoaderOptions options, Device device) {
    this(builder(dataset).options(options).device(device));
  }

  /** A loader of a stream, on the CPU device. */
  public DataLoader(StreamedDataset dataset, LoaderOptions options) {
    this(builder(dataset).options(options));
  }

  /** A builder for a loader of a map dataset. */
  public static Builder builder(MapDataset dataset) {
    return new Builder(Objects.requireNonNull(dataset, "dataset"), null);
  }

  /** A builder for a loader of a stream. */
  public static Builder builder(StreamedDataset dataset) {
    return new Builder(null, Objects.requireNonNull(dataset, "dataset"));
  }

  private DataLoader(Builder b) {
    this.options = Objects.requireNonNull(b.options, "options");
    this.placement = Objects.requireNonNull(b.placement, "placement");
    this.device = Objects.requireNonNull(b.device, "device");
    Schema datasetSchema = b.map != null ? b.map.schema() : b.stream.schema();
    Objects.requireNonNull(datasetSchema, "dataset.schema()");
    SampleStage stage = SampleStage.of(b.transform, datasetSchema, options.seed());
    Schema schema = stage == null ? datasetSchema : stage.output();
    this.name = options.name() != null ? options.name() : "stoker-" + IDS.incrementAndGet();
    this.layout = new BatchLayout(schema, options.batchSize());
    this.input =
        b.input != null ? b.input : b.map != null ? InputFingerprint.ofRows(b.map.size()) : null;
    if (b.resumeFrom != null) {
      Resume.check(b.resumeFrom, options, input, b.acceptChangedInput);
      this.nextEpoch = b.resumeFrom.epoch();
    }
    this.source =
        b.map != null
            ? new IndexedSource(name, b.map, options, placement, layout, stage, b.resumeFrom)
            : new StreamedSource(name, b.stream, options, placement, layout, stage);
    this.budget =
        SlotBudget.of(
            layout.slotBytes(),
            options.maxHostBytes(),
            options.numWorkers(),
            options.prefetchWindow(),
            !device.isHost(),
            source.batchCount() < 0,
            b.keptAhead,
            options.batchSize() + " x " + schema.fields());
    this.ownsAllocator = b.allocator == null;
    this.allocator =
        ownsAllocator
            ? device.hostAllocator(name + "-host", options.maxHostBytes(), options.pinMemory())
            : b.allocator;
    try {
      this.pool =
          new SlotPool(
              name,
              allocator,
              layout.slotBytes(),
              budget.allowed(),
              Math.min(budget.needed(), budget.allowed()));
      this.pipeline =
          new LoaderPipeline(
              new PipelineConfig(
                  name,
                  options.numWorkers(),
                  options.prefetchFactor(),
                  options.persistentWorkers(),
                  options.timeoutNanos(),
                  options.transferDepth(),
                  layout.slotBytes()),
              pool,
              device);
    } catch (Throwable t) {
      Closer closer = new Closer().add(t);
      if (ownsAllocator) {
        closer.run(allocator::close);
      }
      closer.throwIfAny();
      throw t;
    }
  }

  public String name() {
    return name;
  }

  public LoaderOptions options() {
    return options;
  }

  public Placement placement() {
    return placement;
  }

  public Device device() {
    return device;
  }

  /** The allocator of the loader's host slots. */
  public HostAllocator allocator() {
    return allocator;
  }

  public BatchLayout layout() {
    return layout;
  }

  /**
   * Batches every epoch yields on this rank (the same on every rank with {@code dropLast}), or -1
   * for a stream whose length is known only at its end.
   */
  public int batchesPerEpoch() {
    return source.batchCount();
  }

  /** Batches epoch {@code epoch} yields on this rank: fewer in an epoch resumed mid-way. */
  public int batchesInEpoch(int epoch) {
    return source.batchCount(epoch);
  }

  /**
   * Where this loader stands, as a value to store next to a model checkpoint and to resume from
   * ({@link Builder#resumeFrom}): the epoch of the iterator opened last and the batches it has
   * handed out, or the start of the next epoch once it has handed out its last batch (before any
   * epoch: the epoch plain iteration starts with). Taken on one rank, it stands for every rank:
   * ranks move in step, one batch each per training step.
   *
   * @throws UnsupportedOperationException for a stream, whose position its reader keeps
   */
  public synchronized LoaderState state() {
    if (input == null) {
      throw new UnsupportedOperationException(
          "loader '"
              + name
              + "' reads a stream: its position "
              + "is its reader's (expected: a loader of a MapDataset; a format(\"stoker\") read or a "
              + "StokerSpark run keeps a stream's state itself)");
    }
    return Resume.state(options, placement, input, source, position());
  }

  /**
   * Where iteration stands: the epoch of the iterator opened last and the batches it has handed
   * out, or the next epoch's start once it has handed out its last batch (before any epoch: the
   * epoch plain iteration starts with).
   *
   * @param epoch the epoch
   * @param batches the batches of it handed out
   */
  public record Position(int epoch, int batches) {}

  /** Where iteration stands now (see {@link Position}). */
  public synchronized Position position() {
    if (current == null) {
      return new Position(nextEpoch, 0);
    }
    int delivered = current.delivered();
    return delivered == current.batchCount()
        ? new Position(current.epoch() + 1, 0)
        : new Position(current.epoch(), delivered);
  }

  /**
   * Rows of this rank's share that {@code dropLast} drops in the epoch iteration stands in ({@link
   * #position()}): its short last batch. A resumed epoch's are those of its rest.
   */
  public long droppedRows() {
    return droppedRows(position().epoch());
  }

  /** {@link #droppedRows()} of epoch {@code epoch}. */
  public long droppedRows(int epoch) {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= 0)");
    }
    return source.droppedRows(epoch);
  }

  /**
   * Rows of the dataset no batch holds in an epoch, over all ranks: the rows left over when the
   * dataset is split evenly across ranks, plus every rank's short last batch. Zero without {@code
   * dropLast} (the shares are then padded instead, as PyTorch's DistributedSampler does). -1 for a
   * stream, whose rows per rank only that rank knows. Of the epoch iteration stands in ({@link
   * #position()}): a resumed epoch's are the rows its rest leaves out on the ranks it resumed on.
   */
  public long droppedRowsAllRanks() {
    return droppedRowsAllRanks(position().epoch());
  }

  /** {@link #droppedRowsAllRanks()} of epoch {@code epoch}. */
  public long droppedRowsAllRanks(int epoch) {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= 0)");
    }
    return source.droppedRowsAllRanks(epoch);
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

  /**
   * Starts epoch {@code epoch}, ending the one before.
   *
   * @throws BatchLoadException (stage {@code open}) if the epoch could not be started: its source
   *     failed to open or its threads to start; nothing of it is left behind
   */
  private synchronized BatchIterator open(int epoch) {
    checkOpen();
    if (current != null) {
      current.close();
    }
    EpochCounters counters =
        new EpochCounters(
            epoch,
            options.batchSize(),
            options.numWorkers(),
            options.prefetchWindow(),
            budget.allowed(),
            pool::waitNanos);
    EpochSource epochSource;
    try {
      epochSource = source.open(epoch, counters);
    } catch (Throwable t) {
      throw new BatchLoadException(
          name, Stage.OPEN, epoch, 0, -1, "opening the epoch's source failed: " + t, t);
    }
    EpochPipeline epochPipeline;
    try {
      epochPipeline = pipeline.startEpoch(epoch, source.batchCount(epoch), epochSource, counters);
    } catch (Throwable t) {
      closeQuietly(epochSource);
      throw t;
    }
    current =
        new BatchIterator(
            name,
            layout,
            epochSource,
            epochPipeline,
            counters,
            source.batchCount(epoch),
            device.isHost() ? pool.maxSlots() : 0,
            this::epochEnded);
    return current;
  }

  private static void closeQuietly(EpochSource epochSource) {
    try {
      epochSource.close();
    } catch (Throwable t) {
      // the epoch failed to start; its failure is what the caller hears of
    }
  }

  /** Called by an iterator when its epoch ends or is closed. */
  private void epochEnded(EpochMetrics metrics) {
    synchronized (finished) {
      finished.add(metrics);
      if (finished.size() > LoaderMetrics.EPOCHS_KEPT) {
        finished.remove(0);
      }
    }
  }

  /** Every epoch so far, the running one included. */
  public LoaderMetrics metrics() {
    BatchIterator running;
    synchronized (this) {
      running = current;
    }
    List<EpochMetrics> epochs;
    synchronized (finished) {
      epochs = new ArrayList<>(finished);
    }
    if (running != null && !running.hasEnded()) {
      epochs.add(running.metrics());
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

  /** Slots the pool has allocated (they live as long as the loader). */
  public int slotsAllocated() {
    return pool.allocated();
  }

  /** Threads of this loader running now (workers, the transfer thread). */
  public int threadsRunning() {
    return pipeline.threads().size();
  }

  SlotPool pool() {
    return pool;
  }

  private synchronized void checkOpen() {
    if (closed) {
      throw new IllegalStateException("loader '" + name + "' is closed");
    }
  }

  /**
   * Ends the running epoch, stops every thread and frees every slot. Safe to call twice and from
   * any thread; every call returns once the first is done. A thread in dataset code gets a grace to
   * come back (1 s, {@link BatchIterator#TAKE_GRACE_MILLIS}, for a consumer filling its own batch
   * with {@code numWorkers=0}; 1 s and then an interrupt for a worker); one that has not come back
   * by then keeps its slot until it does, and the slot is freed then, with the loader's own
   * allocator. A consumer left that way in a {@code next()} ends with a {@link
   * java.util.concurrent.CancellationException}.
   *
   * @throws IllegalStateException if a thread of the loader did not stop (stuck in dataset code,
   *     ignoring interrupts); its slot is freed when it comes back
   */
  @Override
  public void close() {
    synchronized (closeLock) {
      if (closeDone) {
        return;
      }
      closeDone = true;
      BatchIterator running;
      synchronized (this) {
        closed = true;
        running = current;
        current = null;
      }
      Closer closer = new Closer();
      if (running != null) {
        closer.run(running::close);
      }
      boolean consumerFilling = running != null && running.fillingAfterClose();
      List<String> stuck = pipeline.close(CLOSE_GRACE_NANOS);
      if (!stuck.isEmpty()) {
        closer.add(
            new IllegalStateException(
                "loader '"
                    + name
                    + "': thread(s) still running "
                    + "after close, stuck in dataset code: "
                    + String.join("; ", stuck)
                    + "; their slots are freed when they return"));
      }
      if (stuck.isEmpty() && !consumerFilling) {
        closer.run(pool::close);
        if (ownsAllocator) {
          closer.run(allocator::close);
        }
      } else {
        // The slots still out are in threads inside dataset code, which give them back.
        closer.run(() -> pool.closeAfterReturns(ownsAllocator ? allocator::close : () -> {}));
      }
      closer.throwIfAny();
    }
  }

  @Override
  public String toString() {
    return "DataLoader["
        + name
        + ", "
        + source.describe()
        + ", "
        + options
        + ", "
        + placement
        + ", "
        + device.name()
        + "]";
  }

  /** Builds a {@link DataLoader}; only the options are required. */
  public static final class Builder {
    private final MapDataset map;
    private final StreamedDataset stream;
    private LoaderOptions options;
    private Placement placement = Placement.SINGLE;
    private Device device = CpuDevice.INSTANCE;
    private HostAllocator allocator;
    private LoaderState resumeFrom;
    private boolean acceptChangedInput;
    private InputFingerprint input;
    private int keptAhead;
    private SampleTransform transform;

    private Builder(MapDataset map, StreamedDataset stream) {
      this.map = map;
      this.stream = stream;
    }

    /** The knobs (required). */
    public Builder options(LoaderOptions value) {
      options = Objects.requireNonNull(value, "options");
      return this;
    }

    /** Which shard this loader serves (default: the whole dataset). */
    public Builder placement(Placement value) {
      placement = Objects.requireNonNull(value, "placement");
      return this;
    }

    /** Where batches are delivered (default: the CPU); the caller keeps and closes it. */
    public Builder device(Device value) {
      device = Objects.requireNonNull(value, "device");
      return this;
    }

    /**
     * The allocator of the host slots (default: the device's, pinned with {@code pinMemory}); the
     * caller keeps and closes it, after the loader.
     */
    public Builder allocator(HostAllocator value) {
      allocator = Objects.requireNonNull(value, "allocator");
      return this;
    }

    /**
     * Starts at {@code state} (see {@link DataLoader#state()}): its epoch is the first that plain
     * iteration runs, and that epoch yields only the rows its order has left, split across this
     * loader's ranks (with the state's world size: exactly the batches an uninterrupted run would
     * have yielded from there on). Skipped rows are never read. Other epochs run as in a fresh
     * loader. A stream must itself start that epoch where the state says (its {@link
     * StreamedDataset#rowCount(int)} tells the rows left): the loader only starts there.
     *
     * @throws IllegalArgumentException (at {@link #build()}) if the state's order is not this
     *     loader's (another shuffle or seed), or its input differs ({@link
     *     dev.stoker.loader.state.InputChangedException}, unless {@link #acceptChangedInput})
     */
    public Builder resumeFrom(LoaderState value) {
      resumeFrom = Objects.requireNonNull(value, "resumeFrom");
      return this;
    }

    /** Resume even if the input's fingerprint changed (default false: refused). */
    public Builder acceptChangedInput(boolean value) {
      acceptChangedInput = value;
      return this;
    }

    /**
     * What the input is, for the states this loader takes and checks (default for a map dataset:
     * its row count); e.g. the files a dataset was read from.
     */
    public Builder fingerprint(InputFingerprint value) {
      input = Objects.requireNonNull(value, "fingerprint");
      return this;
    }

    /**
     * Host slots for {@code value} batches the consumer keeps open ({@link
     * BatchIterator#nextKept()}) besides the one it works on, so that keeping them leaves the
     * workers their prefetch window (default 0). A consumer that hands batches on to another
     * process keeps the next one posted while that process steps on the one before.
     */
    public Builder keptAhead(int value) {
      if (value < 0 || value > SlotBudget.MAX_IN_FLIGHT) {
        throw new IllegalArgumentException(
            "keptAhead: "
                + value
                + " (expected: 0 <= keptAhead "
                + "<= "
                + SlotBudget.MAX_IN_FLIGHT
                + ")");
      }
      keptAhead = value;
      return this;
    }

    /**
     * Runs {@code value} on every sample in the workers, between reading the row and filling the
     * batch (default: none, the dataset's fields are the batch's). The batch's schema is then the
     * transform's {@link SampleTransform#outputSchema output}; a dataset with variable-length
     * fields needs one.
     */
    public Builder transform(SampleTransform value) {
      transform = Objects.requireNonNull(value, "transform");
      return this;
    }

    public DataLoader build() {
      return new DataLoader(this);
    }
  }
}
