package dev.stoker.tools.bench;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Schema;
import java.util.function.Function;

/** A plain dataset seen as a {@link Workload}: every field of a sample counts for MB/s. */
record DatasetWorkload(
    String name, Schema schema, long samples, Function<LoaderOptions, DataLoader> loaders)
    implements Workload {

  @Override
  public long bytesPerSample() {
    return schema.bytesPerSample();
  }

  @Override
  public DataLoader newLoader(LoaderOptions options) {
    return loaders.apply(options);
  }
}
