package dev.stoker.spark.python;

import dev.stoker.loader.Batch;
import dev.stoker.loader.BatchIterator;
import dev.stoker.loader.BatchLayout;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.memory.SharedFileAllocator;
import dev.stoker.loader.memory.SlotBudget;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.util.Closer;
import dev.stoker.spark.options.SparkOptionTable;
import dev.stoker.spark.parquet.EpochPlanner;
import dev.stoker.spark.parquet.OpenCounts;
import dev.stoker.spark.parquet.RankDataset;
import dev.stoker.spark.parquet.RankLoader;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.SourceCounters;
import dev.stoker.spark.progress.ProgressCounters;
import dev.stoker.spark.progress.ProgressWatcher;
import dev.stoker.spark.ui.RankFigures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rank's loader feeding a Python process through shared memory: the loader's slots live in a
 * {@link SharedFileAllocator} file, and a thread of its own ({@code stoker-python-rank-N}) takes
 * the batches as kept batches ({@link BatchIterator#nextKept()}) and posts each on the file's
 * {@link SlotChannel} at once, as many ahead as the loader has slots to spare; it closes each batch
 * once Python has released it. So Python finds its next batch posted while it steps, and the loader
 * fills the one after in the slot Python just gave back. Nothing here waits on Spark's channel to
 * Python, so no Arrow batch is ever held half written. After the read's epoch, each time Python
 * asks for another, the same loader (its workers and slots kept) runs the next epoch over the same
 * rows, as a training run's epochs inside one stage do.
 *
 * <p>{@link #close()} (the task's end, however it ends) stops the thread, joins it, closes the
 * loader and deletes the file; safe twice and from any thread.
 */
final class RankPump implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RankPump.class);

  /** How long close() waits for the thread before it interrupts it, and again after. */
  private static final long JOIN_MILLIS = 10_000;

  /**
   * Most batches posted beyond the one Python steps on: the next is ready the moment Python asks,
   * and this thread (with {@code numWorkers=0}) or the workers fill the ones after meanwhile, so
   * that a Python side slow to wake holds nothing up. With each side waiting for half of them at
   * once, more of them also means fewer wake-ups: sixteen measured best here (within the tasks,
   * 0.68 to 0.71 of the JVM's own read, against 0.50 to 0.62 with four, 0.52 to 0.64 with eight;
   * thirty-two gave no more).
   */
  static final int MAX_KEPT_AHEAD = 16;

  /** Most bytes of those slots: batches larger than a sixteenth of this are kept fewer ahead. */
  static final long KEPT_AHEAD_BYTES = 64L << 20;

  private final int rank;
  private final ReadConfig config;
  private final ReadPlan plan;
  private final BatchLayout layout;
  private final SharedFileAllocator memory;
  private final HostMemory control;
  private final SlotChannel channel;
  private final Doorbell bell;
  private final RankLoader loader;
  private final Thread thread;
  private volatile boolean stopping;

  /**
   * Why no epoch follows the read's, which resumed its epoch mid-way (its rows are that epoch's
   * rest, not the rank's whole share); null for a read from an epoch's start.
   */
  private String noNextEpoch;

  /** The read's state at its start, for the handle; null where not given. */
  private String startState;

  private BatchIterator batches;
  private boolean closed;

  /** Plans the epochs after the read's over the whole input; null: the rank's own rows. */
  private final EpochPlanner epochs;

  /** Sends the rank's figures to the Stoker page while the task runs; null where not watched. */
  private ProgressWatcher watcher;

  private RankPump(ReadPlan plan, ReadConfig config, int rank, Path dir, EpochPlanner epochs) {
    this.epochs = epochs;
    this.rank = rank;
    this.plan = plan;
    this.config = config;
    LoaderOptions given = config.loader().options();
    String name = RankLoader.rankName(given, "stoker-python", rank);
    this.layout = new BatchLayout(config.batchSchema(), given.batchSize());
    int keptAhead = keptAhead(layout.slotBytes());
    SlotBudget budget =
        SlotBudget.of(
            layout.slotBytes(),
            given.maxHostBytes(),
            given.numWorkers(),
            given.prefetchWindow(),
            false,
            true,
            keptAhead,
            given.batchSize() + " x " + layout.schema().fields());
    SharedFileAllocator.removeStale(dir);
    this.memory =
        SharedFileAllocator.create(
            dir, name + "-slots", SlotChannel.BYTES + (long) layout.slotBytes() * budget.allowed());
    HostMemory block = null;
    RankLoader built = null;
    Doorbell doorbell = null;
    try {
      Path file = memory.path();
      doorbell = Doorbell.open(file.resolveSibling(file.getFileName() + ".bell"));
      block = memory.allocate(SlotChannel.BYTES);
      this.channel = new SlotChannel(block.bytes(), doorbell);
      RankRuns runs = plan.rank(rank);
      RankLoader.Builder builder =
          RankLoader.builder(config, runs)
              .options(given.toBuilder().name(name).build())
              .slots(memory, keptAhead);
      if (epochs != null) {
        builder.dataset(
            windows -> new RankDataset(config, runs, windows, new SourceCounters(), epochs));
      }
      built = builder.build();
    } catch (Throwable t) {
      Closer onFailure = new Closer().add(t);
      if (block != null) {
        onFailure.run(block::close);
      }
      if (doorbell != null) {
        onFailure.run(doorbell::close);
      }
      onFailure.run(memory::close);
      onFailure.throwIfAny();
      throw t;
    }
    this.loader = built;
    this.control = block;
    this.bell = doorbell;
    this.thread = new Thread(this::pump, "stoker-python-rank-" + rank);
    thread.setDaemon(true);
  }

  /** Batches kept ahead for slots of {@code slotBytes}: at least one, at most sixteen. */
  static int keptAhead(int slotBytes) {
    return (int) Math.max(1, Math.min(MAX_KEPT_AHEAD, KEPT_AHEAD_BYTES / slotBytes));
  }

  /** Starts rank {@code rank}'s loader over a new file in {@code dir}. */
  static RankPump start(ReadPlan plan, ReadConfig config, int rank, Path dir) {
    return start(plan, config, rank, dir, null, null, null, null);
  }

  /**
   * {@link #start(ReadPlan, ReadConfig, int, Path)} for a read that starts at {@code startState}
   * (null: not told), resumed from {@code resumedFrom} (null: none): after an epoch resumed
   * mid-way, asking for the next one fails, saying why. With {@code epochs}, the epochs after the
   * read's are planned again over the whole input (null: the rank's own rows each epoch). With
   * {@code counters} (null: none), the rank's figures go to the driver with the task's heartbeats,
   * Python's own wait and step time among them, for the Stoker page.
   */
  static RankPump start(
      ReadPlan plan,
      ReadConfig config,
      int rank,
      Path dir,
      LoaderState startState,
      LoaderState resumedFrom,
      EpochPlanner epochs,
      ProgressCounters counters) {
    RankPump pump = new RankPump(plan, config, rank, dir, epochs);
    OpenCounts.opened(OpenCounts.Kind.PYTHON_RANKS);
    pump.startState = startState == null ? null : startState.toString();
    if (resumedFrom != null && resumedFrom.consumedRows() > 0) {
      pump.noNextEpoch =
          "the read resumed epoch "
              + resumedFrom.epoch()
              + " mid-way ("
              + resumedFrom.describe()
              + "), so its rows are that epoch's rest, not each rank's whole share (expected: one "
              + "epoch from such a read; the next is a new read with epoch="
              + (resumedFrom.epoch() + 1)
              + " and no resumeFrom)";
    }
    TaskContext task = TaskContext.get();
    try {
      if (counters != null && task != null) {
        pump.watch(counters, task);
      }
      pump.begin();
    } catch (Throwable t) { // a thread that cannot start: nothing of the rank is left behind
      Closer onFailure = new Closer().add(t);
      onFailure.run(pump::close);
      onFailure.throwIfAny();
      throw t;
    }
    return pump;
  }

  /** Starts the watcher that sends this rank's figures with the task's heartbeats. */
  private void watch(ProgressCounters counters, TaskContext task) {
    LoaderOptions options = loader.loader().options();
    RankFigures place =
        new RankFigures(
            rank,
            SparkEnv.get() == null ? null : SparkEnv.get().executorId(),
            null,
            "shared memory (Python)",
            null,
            config.epoch(),
            0,
            plan.batchesPerRank(),
            0,
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
            0,
            0,
            null,
            null,
            false);
    ProgressWatcher.ConsumerClock python =
        new ProgressWatcher.ConsumerClock() {
          @Override
          public long batches() {
            return channel.pythonTaken();
          }

          @Override
          public long samples() {
            return channel.pythonRows();
          }

          @Override
          public long waitMillis() {
            return TimeUnit.NANOSECONDS.toMillis(channel.pythonWaitNanos());
          }

          @Override
          public long stepMillis() {
            return TimeUnit.NANOSECONDS.toMillis(channel.pythonStepNanos());
          }
        };
    watcher =
        new ProgressWatcher(
            loader.loader().name(),
            loader.loader(),
            counters,
            task,
            SparkOptionTable.PROGRESS_INTERVAL.defaultValue().toNanos(),
            place,
            () -> 0L,
            python);
  }

  /**
   * Rank {@code rank}'s loader over a new file in {@code dir}, its thread not started yet ({@link
   * #begin()}): a test can change the folder under the file before a batch is written.
   */
  static RankPump open(ReadPlan plan, ReadConfig config, int rank, Path dir) {
    RankPump pump = new RankPump(plan, config, rank, dir, null);
    OpenCounts.opened(OpenCounts.Kind.PYTHON_RANKS);
    return pump;
  }

  /** Starts the thread that fills and posts the batches; once, before {@link #close()}. */
  void begin() {
    thread.start();
  }

  /** What Python needs to map the file and read its batches. */
  String handle() {
    return RankHandle.json(
        memory.path(),
        bell == null ? null : bell.path(),
        rank,
        plan,
        config,
        layout,
        startState,
        epochs != null);
  }

  Path path() {
    return memory.path();
  }

  private void pump() {
    ArrayDeque<Batch> posted = new ArrayDeque<>();
    try {
      long sequence = 0;
      for (int index = 0; !stopping; index++) {
        // the first epoch at once, each next one once Python asks for it
        if (index > 0 && !channel.awaitEpochAsked(index + 1, () -> stopping)) {
          return; // Python closed its side, or the task ends
        }
        if (index > 0 && noNextEpoch != null) {
          throw new IllegalStateException(noNextEpoch);
        }
        sequence = pumpEpoch(epochAt(index), posted, sequence);
        if (sequence < 0) {
          return;
        }
        channel.epochEnded(index + 1, sequence);
        // the slots stay Python's until it is done: the next epoch starts with none held
        if (!closeReleased(posted, sequence, 0, 1)) {
          return;
        }
      }
    } catch (Throwable t) {
      if (!stopping) {
        LOG.warn("stoker: rank {} failed feeding Python", rank, t);
        channel.failed("rank " + rank + ": " + describe(t, memory.path(), memory.capacity()));
      }
    } finally {
      for (Batch batch : posted) {
        batch.close();
      }
    }
  }

  /** The epoch of the {@code index}-th run of this file (0: the read's). */
  private int epochAt(int index) {
    int epoch = config.epoch() + index;
    if (epoch < 0) {
      throw new IllegalStateException(
          "epoch "
              + config.epoch()
              + " + "
              + index
              + " overflows "
              + "an int: start from a smaller epoch");
    }
    return epoch;
  }

  /**
   * Posts every batch of {@code epoch}, numbered on from {@code sequence}: the next sequence, or -1
   * if Python closed its side or the task ends meanwhile.
   */
  private long pumpEpoch(int epoch, ArrayDeque<Batch> posted, long sequence) {
    BatchIterator it;
    synchronized (this) {
      if (stopping) {
        return -1;
      }
      it = batches = loader.loader().epoch(epoch).iterator();
    }
    int ahead = Math.min(it.keepLimit(), SlotChannel.RING);
    int wakeAfter = wakeAfter(ahead);
    channel.postsAhead(ahead);
    while (!stopping) {
      // one slot free to fill the next batch in: wait until Python is done with the oldest
      if (!closeReleased(posted, sequence, ahead - 1, wakeAfter)) {
        return -1;
      }
      if (!it.hasNext()) {
        return sequence;
      }
      Batch batch = it.nextKept();
      posted.addLast(batch);
      channel.post(sequence, memory.offsetOf(batch.buffer()), batch.size(), batch.index());
      sequence++;
    }
    return -1;
  }

  /**
   * Closes the posted batches Python has released, oldest first, waiting until at most {@code keep}
   * are left: false if Python closed its side or the task ends meanwhile. {@code next} is the
   * sequence the next post gets. When it must wait, it waits for {@code wakeAfter} releases (or as
   * many as it needs, if more): it then fills that many batches in a row while Python steps on the
   * others still posted, and the two sides wake each other once per few batches.
   */
  private boolean closeReleased(ArrayDeque<Batch> posted, long next, int keep, int wakeAfter) {
    long released = channel.released();
    while (!posted.isEmpty()) {
      long oldest = next - posted.size();
      if (released <= oldest) {
        if (posted.size() <= keep) {
          return true;
        }
        int awaited = Math.min(posted.size(), Math.max(posted.size() - keep, wakeAfter));
        if (!channel.awaitReleased(oldest + awaited, () -> stopping)) {
          return false;
        }
        released = channel.released();
      }
      posted.removeFirst().close();
    }
    return true;
  }

  /** Releases a full pump waits for: half of the batches it keeps ahead, at least one. */
  static int wakeAfter(int ahead) {
    return Math.max(1, ahead / 2);
  }

  /**
   * {@code t} and its causes, for Python; where the JVM reports a fault in memory access, the slot
   * {@code file} ({@code bytes} long) lost pages it owned from its making on (its pages are written
   * then): something shortened it or its folder failed, which it says with the remedy.
   */
  static String describe(Throwable t, Path file, long bytes) {
    StringBuilder text = new StringBuilder(String.valueOf(t));
    boolean fault = t instanceof InternalError;
    for (Throwable cause = t.getCause();
        cause != null && cause != cause.getCause();
        cause = cause.getCause()) {
      text.append("; caused by ").append(cause);
      fault |= cause instanceof InternalError;
    }
    if (fault) {
      Path dir = file.getParent();
      String free;
      try {
        free = Files.getFileStore(dir).getUsableSpace() + " bytes free now";
      } catch (IOException | RuntimeException e) {
        free = "its free space unknown";
      }
      text.append(
          String.format(
              " (the slots' file %s of %d bytes faulted on access though its "
                  + "pages were written when it was made: another process shortened or removed it, or "
                  + "%s failed, %s; keep other processes out of %s, or point %s at a memory-backed folder "
                  + "of its own)",
              file, bytes, dir, free, dir, PythonRanks.DIR_CONF));
    }
    return text.toString();
  }

  @Override
  public void close() {
    BatchIterator it;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      stopping = true;
      it = batches;
    }
    channel.stopped();
    Closer closer = new Closer();
    if (it != null) {
      closer.run(it::close);
    }
    closer.run(this::join);
    closer.run(loader::close);
    if (watcher != null) {
      closer.run(watcher::close); // after the loader: its last figures
    }
    if (bell != null) {
      closer.run(bell::close);
    }
    closer.run(control::close);
    closer.run(memory::close);
    OpenCounts.closed(OpenCounts.Kind.PYTHON_RANKS);
    closer.throwIfAny();
  }

  private void join() throws InterruptedException {
    if (thread.getState() == Thread.State.NEW) {
      return;
    }
    thread.join(JOIN_MILLIS);
    if (thread.isAlive()) {
      thread.interrupt();
      thread.join(TimeUnit.SECONDS.toMillis(5));
    }
    if (thread.isAlive()) {
      throw new IllegalStateException(
          "thread "
              + thread.getName()
              + " did not end within "
              + (JOIN_MILLIS / 1000 + 5)
              + " s of the task's end");
    }
  }
}
