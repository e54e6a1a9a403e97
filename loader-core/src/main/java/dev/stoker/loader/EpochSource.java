package dev.stoker.loader;

import dev.stoker.loader.pipeline.BatchWriter;

/** One epoch of a {@link LoaderSource}: writes its batches, and says where their rows came from. */
interface EpochSource extends BatchWriter {
  /**
   * Where row {@code row} of batch {@code batch} came from: the dataset index of the sample, or the
   * row's position in the epoch's stream.
   */
  long sampleIndex(int batch, int row);
}
