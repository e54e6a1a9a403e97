package dev.stoker.loader.bench;

import dev.stoker.loader.MapDataset;

/** A benchmark dataset: a {@link MapDataset} that says what it is and what one sample yields. */
public interface Workload extends MapDataset {
  /** The workload's name, e.g. {@code copy}. */
  String name();

  /** Bytes of the output image one sample writes: what MB/s counts (labels excluded). */
  long bytesPerSample();
}
