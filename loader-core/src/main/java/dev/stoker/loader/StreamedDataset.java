package dev.stoker.loader;

/**
 * A dataset whose rows arrive in order, as column chunks (a Parquet reader's column vectors, Spark
 * {@code ColumnarBatch}es, Arrow vectors): the second kind of source next to the random-access
 * {@link MapDataset}. The loader cuts each epoch's stream into batches of {@code batchSize} rows,
 * copying every column of a chunk in bulk, and shares slots, ordering, prefetch, transfer, metrics
 * and failure handling with map datasets.
 *
 * <p>The stream is this rank's own: order and sharding are the source's (a pure function of the
 * {@link StreamRequest}), so the loader's {@code shuffle}, {@code seed}, rank and world size reach
 * it through the request. With a known {@link #rowCount()} and {@code dropLast}, every epoch yields
 * exactly {@code rowCount / batchSize} full batches, and a stream that ends early or runs long is
 * an error at the batch concerned.
 */
public interface StreamedDataset {
  /** {@link #rowCount()} of a stream whose length is known only once it ends. */
  long UNKNOWN_ROWS = -1;

  /** The fields of every row. */
  Schema schema();

  /** Rows every epoch's stream yields, or {@link #UNKNOWN_ROWS}. */
  long rowCount();

  /**
   * Rows epoch {@code epoch}'s stream yields, or {@link #UNKNOWN_ROWS}: {@link #rowCount()}, unless
   * the stream resumes that epoch mid-way (then what it has left).
   */
  default long rowCount(int epoch) {
    return rowCount();
  }

  /**
   * Opens the stream of one epoch. Its chunks are pulled one at a time, from one thread at a time
   * (not always the same one), only as far as batches need; each is closed once every row of it
   * that a batch takes is copied (at once, for rows no batch takes). The stream is closed once,
   * after its last chunk, when no thread is in {@code next()}.
   */
  ChunkStream open(StreamRequest request) throws Exception;
}
