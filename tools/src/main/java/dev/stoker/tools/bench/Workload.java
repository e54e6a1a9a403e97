package dev.stoker.tools.bench;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamedDataset;

/**
 * What a benchmark loads, whichever kind of source it is: a {@link MapDataset} or a {@link
 * StreamedDataset}, with its name and what one sample yields. The reference workloads are both the
 * dataset and its workload; any other dataset is measured through {@link #of(MapDataset)} or {@link
 * #of(StreamedDataset)}.
 */
public interface Workload {
  /** The workload's name, e.g. {@code copy}. */
  String name();

  /** Bytes of the output image one sample writes: what MB/s counts (labels excluded). */
  long bytesPerSample();

  /** The fields of every sample. */
  Schema schema();

  /** Samples (or rows of a stream) per epoch, or {@link StreamedDataset#UNKNOWN_ROWS}. */
  long samples();

  /** A new loader of this workload's dataset with {@code options}, on the CPU device. */
  DataLoader newLoader(LoaderOptions options);

  /** {@code dataset} as a workload named {@code dataset}, whose every field counts for MB/s. */
  static Workload of(MapDataset dataset) {
    if (dataset instanceof Workload workload) {
      return workload;
    }
    return new DatasetWorkload(
        "dataset", dataset.schema(), dataset.size(), options -> new DataLoader(dataset, options));
  }

  /** {@code dataset} as a workload named {@code stream}, whose every field counts for MB/s. */
  static Workload of(StreamedDataset dataset) {
    if (dataset instanceof Workload workload) {
      return workload;
    }
    return new DatasetWorkload(
        "stream",
        dataset.schema(),
        dataset.rowCount(),
        options -> new DataLoader(dataset, options));
  }
}
