package dev.stoker.loader.tokens;

import dev.stoker.loader.ColumnChunk;
import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * Up to {@code capacity} rows of one chunk being written: each column a buffer laid out as a batch
 * lays it out. A packed row is filled by the documents' shares in turn ({@link #pack}); a padded
 * row holds one share and padding ({@link #pad}). Rows are complete once {@link #full} or {@link
 * #chunk} is asked for them.
 */
final class RowBuilder {
  /**
   * Positions 0, 1, 2, ...: a share's positions copied from here in one bulk copy, for the first 64
   * Ki tokens of a document (after them, composed in {@link #scratch}).
   */
  private static final int[] POSITIONS = IntStream.range(0, 1 << 16).toArray();

  private final TokenLayout layout;
  private final int length;
  private final int capacity;
  private final boolean wide;
  private final boolean cuSeqlens;
  private final ByteBuffer[] columns;
  private final IntBuffer ids32;
  private final LongBuffer ids64;
  private final IntBuffer positions;
  private final IntBuffer marks;
  private final IntBuffer labels32;
  private final LongBuffer labels64;
  private final TokenCounts counts;
  private final ColumnBuffers buffers;

  /**
   * A row's worth of ints, composed here and put into a column in one bulk copy: element-wise puts
   * into a buffer's int view cost several times more.
   */
  private final int[] scratch;

  /** Complete rows. */
  private int rows;

  /** Tokens in the row being packed. */
  private int fill;

  /** Documents begun in the row being packed. */
  private int segments;

  /**
   * @param buffers the columns' buffers, sized by {@link #columnBytes} for the same arguments
   */
  RowBuilder(
      TokenLayout layout, boolean wide, int capacity, TokenCounts counts, ColumnBuffers buffers) {
    this.layout = layout;
    this.length = layout.length();
    this.capacity = capacity;
    this.wide = wide;
    this.counts = counts;
    this.buffers = buffers;
    this.scratch = new int[length];
    this.cuSeqlens = cuSeqlens(layout);
    columns = buffers.take();
    ByteBuffer ids = columns[0];
    ByteBuffer label = layout.shiftLabels() ? columns[3] : null;
    ids32 = wide ? null : ids.asIntBuffer();
    ids64 = wide ? ids.asLongBuffer() : null;
    positions = columns[1].asIntBuffer();
    marks = columns[2].asIntBuffer();
    labels32 = label == null || wide ? null : label.asIntBuffer();
    labels64 = label != null && wide ? label.asLongBuffer() : null;
  }

  /**
   * Bytes of each column of a chunk of {@code capacity} rows: ids, positions, document ids or
   * cumulative lengths, and the labels where the layout shifts them.
   */
  static long[] columnBytes(TokenLayout layout, boolean wide, int capacity) {
    long length = layout.length();
    int idBytes = wide ? 8 : 4;
    long ids = capacity * length * idBytes;
    long positions = capacity * length * 4;
    long marks = capacity * (cuSeqlens(layout) ? length + 1 : length) * 4;
    return layout.shiftLabels()
        ? new long[] {ids, positions, marks, ids}
        : new long[] {ids, positions, marks};
  }

  private static boolean cuSeqlens(TokenLayout layout) {
    return layout.mode() == TokenLayout.Mode.PACK
        && layout.boundaries() == TokenLayout.Boundaries.CU_SEQLENS;
  }

  boolean full() {
    return rows == capacity;
  }

  int rows() {
    return rows;
  }

  /** Tokens in the row being packed, not yet complete. */
  int fill() {
    return fill;
  }

  /**
   * Packs up to {@code most} of the document's tokens left into the row being filled (and the rows
   * after it, as far as there is room); returns how many it took.
   */
  int pack(Document doc, long most) {
    int taken = 0;
    while (doc.left() > 0 && taken < most && rows < capacity) {
      int count = (int) Math.min(Math.min(doc.left(), length - fill), most - taken);
      int at = rows * length + fill;
      share(doc, at, count);
      if (!cuSeqlens) {
        Arrays.fill(scratch, 0, count, segments);
        marks.put(at, scratch, 0, count);
      }
      fill += count;
      taken += count;
      doc.take(count);
      if (cuSeqlens) {
        marks.put(rows * (length + 1) + segments + 1, fill);
      }
      segments++;
      if (fill == length) {
        endPackedRow();
      }
    }
    return taken;
  }

  private void endPackedRow() {
    if (cuSeqlens) {
      int base = rows * (length + 1);
      marks.put(base, 0);
      for (int s = segments + 1; s <= length; s++) {
        marks.put(base + s, length);
      }
    }
    rows++;
    fill = 0;
    segments = 0;
    counts.addTokens(length);
    counts.addRow();
  }

  /**
   * One row of the document's next {@code min(left, length)} tokens, padded; returns how many it
   * took.
   */
  int pad(Document doc) {
    int count = Math.min(doc.left(), length);
    int at = rows * length;
    share(doc, at, count);
    for (int i = 0; i < length; i++) {
      marks.put(at + i, i < count ? 1 : 0);
    }
    for (int i = count; i < length; i++) {
      if (wide) {
        ids64.put(at + i, layout.padToken());
      } else {
        ids32.put(at + i, (int) layout.padToken());
      }
      positions.put(at + i, 0);
      label(at + i, TokenLayout.IGNORE_LABEL);
    }
    doc.take(count);
    rows++;
    counts.addTokens(count);
    counts.addPadding(length - count);
    counts.addRow();
    return count;
  }

  /**
   * Writes the document's next {@code count} tokens at element {@code at}: ids, positions going on
   * from where the document is, labels shifted by one within the document.
   */
  private void share(Document doc, int at, int count) {
    int from = doc.placed();
    doc.copyIds(columns[0], at, from, count);
    if (from <= POSITIONS.length - count) {
      positions.put(at, POSITIONS, from, count);
    } else {
      for (int i = 0; i < count; i++) {
        scratch[i] = from + i;
      }
      positions.put(at, scratch, 0, count);
    }
    if (!layout.shiftLabels()) {
      return;
    }
    int next = Math.min(count, doc.length() - from - 1);
    if (next > 0) {
      doc.copyIds(columns[3], at, from + 1, next);
    }
    for (int i = Math.max(next, 0); i < count; i++) {
      label(at + i, TokenLayout.IGNORE_LABEL);
    }
  }

  private void label(int at, long value) {
    if (!layout.shiftLabels()) {
      return;
    }
    if (wide) {
      labels64.put(at, value);
    } else {
      labels32.put(at, (int) value);
    }
  }

  /**
   * The complete rows as a chunk, whose close hands the buffers back; a packed row not yet complete
   * is not in it. Called once: the builder is done with.
   */
  ColumnChunk chunk() {
    return buffers.chunk(rows, columns);
  }
}
