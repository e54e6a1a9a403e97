package dev.stoker.loader;

/** One epoch's rows, chunk by chunk, from a {@link StreamedDataset}. */
public interface ChunkStream extends AutoCloseable {
  /**
   * The next chunk, or null at the end of the stream. A chunk stays valid until it is closed. A
   * stream that reuses a chunk's memory may wait here for that chunk to be closed, but must not
   * wait so to answer that the stream has ended. A chunk may have 0 rows, but a stream that gives
   * 2^20 of them in a row, or gives only them for longer than the loader's timeout, fails.
   */
  ColumnChunk next() throws Exception;

  /**
   * Ends the stream, once: every chunk it gave was closed before, and no thread is in {@link
   * #next()}. It may come from another thread than the last {@code next()}.
   */
  @Override
  void close() throws Exception;
}
