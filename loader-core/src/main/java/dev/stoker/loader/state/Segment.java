package dev.stoker.loader.state;

import java.io.Serializable;

/**
 * A stretch of an epoch run on {@code worldSize} ranks, each of which consumed {@code rows} rows of
 * its share before the run stopped (or, for the last one, so far).
 */
public record Segment(int worldSize, long rows) implements Serializable {
  private static final long serialVersionUID = 1L;

  public Segment {
    if (worldSize <= 0) {
      throw new IllegalArgumentException("worldSize: " + worldSize + " (expected: > 0)");
    }
    if (rows < 0) {
      throw new IllegalArgumentException("rows: " + rows + " (expected: >= 0)");
    }
  }

  /** Rows the segment consumed on all its ranks together. */
  public long allRanks() {
    return worldSize * rows;
  }
}
