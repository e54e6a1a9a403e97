package dev.stoker.spark.parquet;

import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.io.IOException;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.MessageType;

/**
 * Checks the levels of a tensor column's values run by run: every value present (its definition
 * level the highest), and for a list a new row (repetition level 0) exactly every {@code L} values.
 * The first bad value is an error naming its row in the file: null, an empty list, a null value, or
 * a row of another length (with its length). A level above the column's highest or levels that end
 * before the values are a corrupt page ({@link PageFormatException}). A variable-length list's
 * entries are checked one at a time ({@link #listEntry}): there an empty list is a row of no
 * values.
 */
public final class LevelCheck {
  private final ColumnSpec column;
  private final String path;
  private final long firstRow;
  private final int maxDef;
  private final int maxRep;

  /** Def levels below it: the column (the list) is null. */
  private final int presentDef;

  /** Def levels below it (and not null): the list is empty. */
  private final int elementsDef;

  private final int perRow;

  /**
   * @param firstRow the index in file {@code path} of the row group's first row
   */
  LevelCheck(
      ColumnSpec column,
      ColumnDescriptor descriptor,
      MessageType schema,
      String path,
      long firstRow) {
    this.column = column;
    this.path = path;
    this.firstRow = firstRow;
    this.maxDef = descriptor.getMaxDefinitionLevel();
    this.maxRep = descriptor.getMaxRepetitionLevel();
    String[] leaf = descriptor.getPath();
    this.presentDef = schema.getMaxDefinitionLevel(leaf[0]);
    this.elementsDef = leaf.length > 1 ? schema.getMaxDefinitionLevel(leaf[0], leaf[1]) : maxDef;
    this.perRow = column.kind() == Kind.LIST ? column.elements() : 1;
  }

  private long row(long valueIndex) {
    return firstRow + valueIndex / perRow;
  }

  /**
   * Checks the levels of {@code n} values from value {@code value} of the column chunk, reading
   * them from {@code reps} and {@code defs} (null where the column has none).
   */
  void check(HybridDecoder reps, HybridDecoder defs, long value, int n) throws IOException {
    long badDef = -1;
    int defLevel = maxDef;
    if (defs != null) {
      long v = value;
      for (int left = n; left > 0 && badDef < 0; ) {
        int k = Math.min(available(defs, "definition"), left);
        if (defs.rle()) {
          if (defs.value() != maxDef) {
            checkDef(defs.value());
            badDef = v;
            defLevel = defs.value();
          }
          defs.skip(k);
        } else {
          for (int i = 0; i < k && badDef < 0; i++) {
            int level = defs.next();
            if (level != maxDef) {
              checkDef(level);
              badDef = v + i;
              defLevel = level;
            }
          }
        }
        v += k;
        left -= k;
      }
    }
    RepCheck rep = reps == null ? null : checkReps(reps, value, n);
    if (badDef >= 0 && (rep == null || badDef <= rep.position)) {
      throw defError(badDef, defLevel);
    }
    if (rep != null) {
      throw RowErrors.wrongLength(column, rep.length, row(rep.row * (long) perRow), path);
    }
  }

  /**
   * Checks one entry of a variable-length list, of definition level {@code level}, in row {@code
   * row} of the file; {@code first} when it starts its row. Returns whether it holds a value: an
   * empty list (its row's only entry) holds none.
   *
   * @throws RowErrors.BadRow for a null list or a null value, naming the row
   * @throws PageFormatException for a level above the column's highest, or an empty list that is
   *     not its row's only entry
   */
  boolean listEntry(int level, boolean first, long row) throws PageFormatException {
    if (level == maxDef) {
      return true;
    }
    checkDef(level);
    if (level < presentDef) {
      throw RowErrors.nullValue(column, "is null", row, path);
    }
    if (level >= elementsDef) {
      throw RowErrors.nullValue(column, "holds a null value", row, path);
    }
    if (!first) {
      throw new PageFormatException(
          "an empty list's level inside the list of row " + row + " (expected: at its start)");
    }
    return false;
  }

  /** The values left in {@code levels}' current run; none is a page that ends too early. */
  static int available(HybridDecoder levels, String what) throws PageFormatException {
    int available = levels.available();
    if (available == 0) {
      throw new PageFormatException("the " + what + " levels of a page end before its values");
    }
    return available;
  }

  private void checkDef(int level) throws PageFormatException {
    if (level > maxDef) {
      throw new PageFormatException(
          "a definition level of " + level + " (expected: at most " + maxDef + ")");
    }
  }

  void checkRep(int level) throws PageFormatException {
    if (level > maxRep) {
      throw new PageFormatException(
          "a repetition level of " + level + " (expected: at most " + maxRep + ")");
    }
  }

  private RowErrors.BadRow defError(long position, int level) {
    if (level < presentDef) {
      return RowErrors.nullValue(column, "is null", row(position), path);
    }
    if (level < elementsDef) {
      return RowErrors.wrongLength(column, "0", row(position), path);
    }
    return RowErrors.nullValue(column, "holds a null value", row(position), path);
  }

  /** A row of another length: its index in the chunk and its length as text. */
  private record RepCheck(long position, long row, String length) {}

  /**
   * Checks the repetition levels of the next {@code n} values of a list column: level 0 (a new row)
   * at every multiple of the row length, 1 elsewhere. Returns the first row of another length, or
   * null.
   */
  private RepCheck checkReps(HybridDecoder reps, long value, int n) throws IOException {
    int length = perRow;
    long v = value;
    for (int left = n; left > 0; ) {
      int available = available(reps, "repetition");
      int k = Math.min(available, left);
      long offset = v % length;
      if (reps.rle()) {
        checkRep(reps.value());
      }
      if (reps.rle() && reps.value() == 1) {
        if (offset == 0) {
          reps.skip(available);
          return tooLong(reps, v, available);
        }
        if (offset + k > length) {
          int rest = available - (int) (length - offset);
          reps.skip(available);
          return tooLong(reps, v + length - offset, rest);
        }
        reps.skip(k);
      } else if (reps.rle() && reps.value() == 0) {
        if (offset != 0) {
          return new RepCheck(v, v / length, Long.toString(offset));
        }
        if (k > 1 && length > 1) {
          return new RepCheck(v + 1, v / length, "1");
        }
        reps.skip(k);
      } else {
        for (int i = 0; i < k; i++) {
          long p = v + i;
          int level = reps.next();
          checkRep(level);
          if (level == 0 && p % length != 0) {
            return new RepCheck(p, p / length, Long.toString(p % length));
          }
          if (level != 0 && p % length == 0) {
            return tooLong(reps, p, 1);
          }
        }
      }
      v += k;
      left -= k;
    }
    return null;
  }

  /**
   * The row ending before value {@code p} goes on past its length: {@code extra} continuation
   * levels from {@code p} on are already counted (and read); the rest are read up to the next row
   * start, as far as the page goes.
   */
  private RepCheck tooLong(HybridDecoder reps, long p, long extra) throws IOException {
    boolean ended = false;
    while (!ended) {
      int available = reps.available();
      if (available == 0) {
        break;
      }
      if (reps.rle()) {
        ended = reps.value() == 0;
        extra += ended ? 0 : available;
        reps.skip(available);
      } else {
        for (int i = 0; i < available && !ended; i++) {
          ended = reps.next() == 0;
          extra += ended ? 0 : 1;
        }
      }
    }
    return new RepCheck(p, p / perRow - 1, (ended ? "" : "at least ") + (perRow + extra));
  }
}
