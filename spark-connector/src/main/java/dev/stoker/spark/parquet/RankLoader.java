package dev.stoker.spark.parquet;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Placement;
import dev.stoker.loader.SampleTransform;
import dev.stoker.loader.StreamedDataset;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.tokens.TokenCounts;
import dev.stoker.loader.tokens.TokenRows;
import dev.stoker.loader.util.Closer;
import java.util.Objects;

/**
 * One rank's loader over its planned Parquet runs, built in one place for every way a rank is read
 * (a {@code format("stoker")} partition, a runner's rank, a Python rank, the JVM yardstick): the
 * shuffle windows sized for the runs (and for the runs of a resumed epoch's rest) and owned here,
 * the dataset over them, and the loader with the rank's placement, device, slot allocator, resume
 * state and the read's transform (made here, on the executor, from its spec).
 *
 * <p>{@link #close()} closes the loader, then frees the windows, but only once the loader has
 * closed cleanly: a worker that did not stop may still be reading them.
 */
public final class RankLoader implements AutoCloseable {
  /** Makes a rank's dataset whose shuffle windows come from {@code windows}. */
  @FunctionalInterface
  public interface DatasetMaker {
    StreamedDataset over(HostAllocator windows);
  }

  private final DirectAllocator windows;
  private final DataLoader loader;

  /** The token rows the loader reads, or null. */
  private final TokenRows tokens;

  private boolean closed;

  private RankLoader(DirectAllocator windows, DataLoader loader, TokenRows tokens) {
    this.windows = windows;
    this.loader = loader;
    this.tokens = tokens;
  }

  /** The figures of the token rows of the epoch read last, or null without token rows. */
  public TokenCounts tokenCounts() {
    return tokens == null ? null : tokens.counts();
  }

  /** A builder of rank {@code runs.rank()}'s loader over {@code runs}, read with {@code config}. */
  public static Builder builder(ReadConfig config, RankRuns runs) {
    return new Builder(config, runs);
  }

  /**
   * The name of rank {@code rank}'s loader: the options' name, else {@code fallback}, with the
   * rank.
   */
  public static String rankName(LoaderOptions options, String fallback, int rank) {
    return (options.name() != null ? options.name() : fallback) + "-rank" + rank;
  }

  /** The bytes of the two shuffle windows of {@code windowRows} rows each that a rank holds. */
  public static long windowBytes(ReadConfig config, int windowRows) {
    return 2 * ShuffleWindow.bytes(config.columns(), windowRows);
  }

  public DataLoader loader() {
    return loader;
  }

  /**
   * Closes the loader and then frees the windows; a loader that fails to close keeps them (its
   * failure is thrown). Safe twice.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    loader.close();
    windows.close();
  }

  /** What a rank's loader is built from; {@link #build()} allocates nothing else. */
  public static final class Builder {
    private final ReadConfig config;
    private final RankRuns runs;
    private LoaderOptions options;
    private int worldSize;
    private Device device;
    private HostAllocator slots;
    private int keptAhead;
    private LoaderState resumeFrom;
    private RankRuns resumedRuns;
    private DatasetMaker dataset;

    private Builder(ReadConfig config, RankRuns runs) {
      this.config = Objects.requireNonNull(config, "config");
      this.runs = Objects.requireNonNull(runs, "runs");
      this.options = config.loader().options();
      this.worldSize = config.loader().placement().worldSize();
    }

    /** The loader's options, name included (default: the read's, named {@code stoker-source}). */
    public Builder options(LoaderOptions value) {
      options = Objects.requireNonNull(value, "options");
      return this;
    }

    /** Names the loader after the options' name, else {@code fallback}, and the rank. */
    public Builder namedAfter(String fallback) {
      options = options.toBuilder().name(rankName(options, fallback, runs.rank())).build();
      return this;
    }

    /** The ranks the epoch is split over (default: the read's). */
    public Builder worldSize(int value) {
      worldSize = value;
      return this;
    }

    /** The device batches are copied to (default: none, host batches). */
    public Builder device(Device value) {
      device = value;
      return this;
    }

    /** Where the loader's slots live (default: the loader's own). */
    public Builder slots(HostAllocator value, int keptAheadBatches) {
      slots = value;
      keptAhead = keptAheadBatches;
      return this;
    }

    /**
     * Starts from {@code state}, whose epoch's rest the rank reads as {@code rest}: the windows are
     * sized for the larger of its runs and the rank's.
     */
    public Builder resumeFrom(LoaderState state, RankRuns rest) {
      resumeFrom = state;
      resumedRuns = rest;
      return this;
    }

    /** The rank's dataset (default: a {@link RankDataset} over the runs). */
    public Builder dataset(DatasetMaker value) {
      dataset = value;
      return this;
    }

    /**
     * With token rows, {@code documents} packed or padded as the read says (packed: the rank's span
     * of the epoch's tokens); else {@code documents}.
     */
    private StreamedDataset tokenRows(StreamedDataset documents) {
      if (config.tokens() == null) {
        return documents;
      }
      TokenRows rows =
          TokenRows.of(documents, config.columns().get(0).name(), config.tokens())
              .tokenizerThreads(Math.max(1, options.numWorkers()));
      TokenSpan span = runs.tokens();
      if (span != null) {
        rows = rows.span(span.skips(), span.takes());
      }
      TokenSpan rest = resumedRuns == null ? null : resumedRuns.tokens();
      if (rest != null) {
        rows = rows.resuming(resumeFrom.epoch(), rest.skips(), rest.takes());
      }
      return rows;
    }

    /** The rank's loader; if building it fails, the windows are freed and the failure thrown. */
    public RankLoader build() {
      int windowRows = runs.windowRows(config.windowRows());
      int streams = runs.streams();
      if (resumedRuns != null) {
        windowRows = Math.max(windowRows, resumedRuns.windowRows(config.windowRows()));
        streams = Math.max(streams, resumedRuns.streams());
      }
      String name =
          options.name() != null ? options.name() : rankName(options, "stoker-source", runs.rank());
      DirectAllocator windows =
          new DirectAllocator(name + "-windows", streams * windowBytes(config, windowRows));
      try {
        StreamedDataset source =
            tokenRows(
                dataset != null
                    ? dataset.over(windows)
                    : new RankDataset(config, runs, windows, new SourceCounters()));
        DataLoader.Builder builder =
            DataLoader.builder(source)
                .options(options.name() != null ? options : options.toBuilder().name(name).build())
                .placement(Placement.of(runs.rank(), worldSize));
        SampleTransform transform = config.transform();
        if (transform != null) {
          builder.transform(transform);
        }
        if (device != null) {
          builder.device(device);
        }
        if (slots != null) {
          builder.allocator(slots).keptAhead(keptAhead);
        }
        if (resumeFrom != null) {
          builder.resumeFrom(resumeFrom);
        }
        return new RankLoader(
            windows, builder.build(), source instanceof TokenRows rows ? rows : null);
      } catch (Throwable t) {
        Closer closer = new Closer().add(t);
        closer.run(windows::close);
        closer.throwIfAny();
        throw t;
      }
    }
  }
}
