package dev.stoker.spark.parquet;

import java.io.Closeable;
import java.io.IOException;

/** Reads one {@link ReadRun} into shuffle windows, a block of rows at a time. */
public interface RunReader extends Closeable {
  /**
   * Reads the run's next rows, at most {@code rows}, into {@code window} from row {@code atRow};
   * returns how many: at least one while the run has rows left.
   */
  int read(ShuffleWindow window, int atRow, int rows) throws IOException;
}
