package dev.stoker.tools.bench;

import dev.stoker.loader.MapDataset;
import dev.stoker.loader.StreamedDataset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Runs a {@link LoaderBenchmark} for every point of the grid workers x prefetch factor x pinned
 * memory (a prefetch factor only with workers; workers = 0 is one point per pinning), each {@code
 * repeats} times, and keeps the median. Repeats go round the whole grid, so a slow moment of the
 * machine spreads over all points instead of sinking one; given a way to measure the memcpy limits,
 * the sweep measures them before every round too, so that the limits the rows are compared with
 * (the medians) were measured side by side with them.
 */
public final class Sweep {
  /** Called after every run, e.g. to show progress. */
  @FunctionalInterface
  public interface Listener {
    void onRun(SweepConfig config, int run, int runs, BenchmarkResult result);

    /** Called after the memcpy limits were measured before round {@code round} (from 1). */
    default void onMemcpy(int round, int rounds, MemcpyLimits limits) {}
  }

  private final List<SweepConfig> configs;
  private final int batchSize;
  private final int warmupBatches;
  private final int measuredBatches;
  private final int repeats;
  private final long seed;

  private Sweep(Builder b) {
    this.configs = grid(b.workers, b.prefetch, b.pinMemory);
    this.batchSize = b.batchSize;
    this.warmupBatches = b.warmupBatches;
    this.measuredBatches = b.measuredBatches;
    this.repeats = b.repeats;
    this.seed = b.seed;
  }

  public static Builder builder() {
    return new Builder();
  }

  private static List<SweepConfig> grid(
      List<Integer> workers, List<Integer> prefetch, List<Boolean> pins) {
    List<SweepConfig> grid = new ArrayList<>();
    for (int w : new LinkedHashSet<>(workers)) {
      for (boolean pin : new LinkedHashSet<>(pins)) {
        if (w == 0) {
          grid.add(new SweepConfig(0, null, pin));
          continue;
        }
        for (int p : new LinkedHashSet<>(prefetch)) {
          grid.add(new SweepConfig(w, p, pin));
        }
      }
    }
    return List.copyOf(grid);
  }

  /** The grid's points, in the order of the rows. */
  public List<SweepConfig> configs() {
    return configs;
  }

  public int batchSize() {
    return batchSize;
  }

  public int warmupBatches() {
    return warmupBatches;
  }

  public int measuredBatches() {
    return measuredBatches;
  }

  public int repeats() {
    return repeats;
  }

  public SweepResult run(MapDataset dataset, double memcpyMbPerSecond) {
    return run(dataset, memcpyMbPerSecond, (config, run, runs, result) -> {});
  }

  /** Runs the grid on {@code dataset}; ratios are to {@code memcpyMbPerSecond} (one thread). */
  public SweepResult run(MapDataset dataset, double memcpyMbPerSecond, Listener listener) {
    return run(Workload.of(dataset), MemcpyLimits.oneThread(memcpyMbPerSecond), listener);
  }

  /** Runs the grid on {@code dataset}; ratios are to both {@code limits}. */
  public SweepResult run(MapDataset dataset, MemcpyLimits limits, Listener listener) {
    return run(Workload.of(dataset), limits, listener);
  }

  /** Runs the grid on a stream; ratios are to both {@code limits}. */
  public SweepResult run(StreamedDataset dataset, MemcpyLimits limits, Listener listener) {
    return run(Workload.of(dataset), limits, listener);
  }

  public SweepResult run(Workload workload, MemcpyLimits limits) {
    return run(workload, limits, (config, run, runs, result) -> {});
  }

  /** Runs the grid on {@code workload}; ratios are to both {@code limits}. */
  public SweepResult run(Workload workload, MemcpyLimits limits, Listener listener) {
    Objects.requireNonNull(limits, "limits");
    return run(workload, () -> limits, false, listener);
  }

  /**
   * Runs the grid on {@code workload}, measuring the memcpy limits with {@code memcpy} before every
   * round of the grid; ratios are to the medians of those measurements.
   */
  public SweepResult run(Workload workload, Supplier<MemcpyLimits> memcpy, Listener listener) {
    return run(workload, memcpy, true, listener);
  }

  private SweepResult run(
      Workload workload, Supplier<MemcpyLimits> memcpy, boolean measured, Listener listener) {
    List<List<BenchmarkResult>> results = new ArrayList<>();
    configs.forEach(c -> results.add(new ArrayList<>()));
    List<MemcpyLimits> measurements = new ArrayList<>();
    int done = 0;
    int total = configs.size() * repeats;
    for (int r = 0; r < repeats; r++) {
      if (measured || r == 0) {
        MemcpyLimits limits = Objects.requireNonNull(memcpy.get(), "memcpy limits");
        measurements.add(limits);
        if (measured) {
          listener.onMemcpy(r + 1, repeats, limits);
        }
      }
      for (int c = 0; c < configs.size(); c++) {
        SweepConfig config = configs.get(c);
        BenchmarkResult result =
            LoaderBenchmark.run(
                workload, config.options(batchSize, seed), warmupBatches, measuredBatches);
        results.get(c).add(result);
        listener.onRun(config, ++done, total, result);
      }
    }
    MemcpyLimits limits = median(measurements);
    List<SweepRow> rows = new ArrayList<>();
    for (int c = 0; c < configs.size(); c++) {
      rows.add(row(configs.get(c), results.get(c), limits));
    }
    return new SweepResult(workload.samples(), batchSize, limits, rows);
  }

  /** Each figure's median over the measurements. */
  private static MemcpyLimits median(List<MemcpyLimits> measurements) {
    if (measurements.size() == 1) {
      return measurements.get(0);
    }
    return new MemcpyLimits(
        Medians.of(measurements.stream().mapToDouble(MemcpyLimits::oneThreadMbPerSecond).toArray()),
        Medians.of(measurements.stream().mapToDouble(MemcpyLimits::allCoresMbPerSecond).toArray()),
        measurements.get(0).threads());
  }

  private static SweepRow row(SweepConfig config, List<BenchmarkResult> runs, MemcpyLimits limits) {
    double[] rates = runs.stream().mapToDouble(BenchmarkResult::samplesPerSecond).toArray();
    double median = Medians.of(rates);
    List<BenchmarkResult> sorted = new ArrayList<>(runs);
    sorted.sort(Comparator.comparingDouble(BenchmarkResult::samplesPerSecond));
    BenchmarkResult middle = sorted.get((sorted.size() - 1) / 2);
    double mb = median * middle.bytesPerSample() / 1e6;
    return new SweepRow(
        config, median, mb, limits.ratioToOneThread(mb), limits.ratioToAllCores(mb), middle, runs);
  }

  /** Builds a {@link Sweep}; the defaults are those of the PyTorch peer's runs. */
  public static final class Builder {
    private List<Integer> workers = List.of(0, 1, 2);
    private List<Integer> prefetch = List.of(2, 4);
    private List<Boolean> pinMemory = List.of(false);
    private int batchSize = 64;
    private int warmupBatches = 20;
    private int measuredBatches = 150;
    private int repeats = 3;
    private long seed;

    private Builder() {}

    /** Worker counts, each >= 0 (default 0, 1, 2). */
    public Builder workers(List<Integer> values) {
      workers = checked("workers", values, 0);
      return this;
    }

    /** Prefetch factors for worker counts > 0, each >= 1 (default 2, 4). */
    public Builder prefetchFactors(List<Integer> values) {
      prefetch = checked("prefetch", values, 1);
      return this;
    }

    /** Pinned-memory settings to try (default false only). */
    public Builder pinMemory(List<Boolean> values) {
      Objects.requireNonNull(values, "pinMemory");
      if (values.isEmpty() || values.stream().anyMatch(Objects::isNull)) {
        throw new IllegalArgumentException(
            "pinMemory: " + values + " (expected: one or more of true, false)");
      }
      pinMemory = List.copyOf(values);
      return this;
    }

    /** Samples per batch, > 0 (default 64). */
    public Builder batchSize(int value) {
      batchSize = positive("batchSize", value);
      return this;
    }

    /** Batches consumed before measuring, >= 0 (default 20). */
    public Builder warmupBatches(int value) {
      if (value < 0) {
        throw new IllegalArgumentException("warmupBatches: " + value + " (expected: >= 0)");
      }
      warmupBatches = value;
      return this;
    }

    /** Batches measured per run, > 0 (default 150). */
    public Builder measuredBatches(int value) {
      measuredBatches = positive("measuredBatches", value);
      return this;
    }

    /** Runs per configuration, > 0 (default 3); the median counts. */
    public Builder repeats(int value) {
      repeats = positive("repeats", value);
      return this;
    }

    /** Seed of the shuffle (default 0). */
    public Builder seed(long value) {
      seed = value;
      return this;
    }

    public Sweep build() {
      return new Sweep(this);
    }

    private static List<Integer> checked(String name, List<Integer> values, int least) {
      Objects.requireNonNull(values, name);
      if (values.isEmpty()) {
        throw new IllegalArgumentException(name + ": [] (expected: at least one value)");
      }
      for (Integer value : values) {
        if (value == null || value < least) {
          throw new IllegalArgumentException(
              name + ": " + value + " in " + values + " (expected: every value >= " + least + ")");
        }
      }
      return List.copyOf(values);
    }

    private static int positive(String name, int value) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
      }
      return value;
    }
  }
}
