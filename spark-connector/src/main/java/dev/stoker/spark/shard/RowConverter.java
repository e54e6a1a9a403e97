package dev.stoker.spark.shard;

import dev.stoker.loader.ColumnTarget;
import java.nio.ByteBuffer;

/**
 * Writes one stored row of a column into a batch's column as another dtype: normalized float32
 * ({@link RowNormalizer}), or a wider type that holds every stored value exactly ({@link
 * RowWidener}).
 */
public interface RowConverter {
  /**
   * Writes the row stored at byte {@code offset} of {@code src} (native order, read with absolute
   * access) to {@code target}.
   */
  void write(ByteBuffer src, int offset, ColumnTarget target);
}
