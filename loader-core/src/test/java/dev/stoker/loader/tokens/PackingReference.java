package dev.stoker.loader.tokens;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The rows a layout makes of documents, computed the plain way: every token of the stream listed
 * with its document, position and label, then cut into rows.
 */
final class PackingReference {
  /** One row's columns; {@code marks} are document ids, cu_seqlens or the attention mask. */
  record Row(long[] ids, int[] positions, int[] marks, long[] labels) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Row r
          && Arrays.equals(ids, r.ids)
          && Arrays.equals(positions, r.positions)
          && Arrays.equals(marks, r.marks)
          && Arrays.equals(labels, r.labels);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(ids);
    }

    @Override
    public String toString() {
      return "ids "
          + Arrays.toString(ids)
          + " positions "
          + Arrays.toString(positions)
          + " marks "
          + Arrays.toString(marks)
          + " labels "
          + Arrays.toString(labels);
    }
  }

  private record Token(long id, int document, int position, long label) {}

  private PackingReference() {}

  /** The document's tokens in the stream: its ids, its end token, cut where the layout says. */
  static long[] streamed(long[] ids, TokenLayout layout) {
    long[] out = Arrays.copyOf(ids, ids.length + (layout.eodToken() >= 0 ? 1 : 0));
    if (layout.eodToken() >= 0) {
      out[ids.length] = layout.eodToken();
    }
    boolean cuts =
        layout.longDocuments() == TokenLayout.LongDocuments.CUT
            || layout.longDocuments() == TokenLayout.LongDocuments.TRUNCATE;
    return cuts && out.length > layout.length() ? Arrays.copyOf(out, layout.length()) : out;
  }

  private static List<Token> tokens(List<long[]> documents, TokenLayout layout) {
    List<Token> tokens = new ArrayList<>();
    for (int d = 0; d < documents.size(); d++) {
      long[] doc = streamed(documents.get(d), layout);
      for (int i = 0; i < doc.length; i++) {
        tokens.add(
            new Token(doc[i], d, i, i + 1 < doc.length ? doc[i + 1] : TokenLayout.IGNORE_LABEL));
      }
    }
    return tokens;
  }

  /** Packed rows of the stream's tokens {@code [skip, skip + take)} (take -1: all full rows). */
  static List<Row> packed(List<long[]> documents, TokenLayout layout, long skip, long take) {
    List<Token> all = tokens(documents, layout);
    int length = layout.length();
    long end = take < 0 ? skip + (all.size() - skip) / length * length : skip + take;
    List<Row> rows = new ArrayList<>();
    for (long start = skip; start < end; start += length) {
      List<Token> row = all.subList((int) start, (int) start + length);
      long[] ids = new long[length];
      int[] positions = new int[length];
      long[] labels = new long[length];
      int[] docIds = new int[length];
      List<Integer> ends = new ArrayList<>();
      int id = 0;
      for (int i = 0; i < length; i++) {
        Token t = row.get(i);
        if (i > 0 && t.document() != row.get(i - 1).document()) {
          id++;
          ends.add(i);
        }
        ids[i] = t.id();
        positions[i] = t.position();
        labels[i] = t.label();
        docIds[i] = id;
      }
      ends.add(length);
      int[] cu = new int[length + 1];
      Arrays.fill(cu, length);
      cu[0] = 0;
      for (int s = 0; s < ends.size(); s++) {
        cu[s + 1] = ends.get(s);
      }
      boolean cuSeqlens = layout.boundaries() == TokenLayout.Boundaries.CU_SEQLENS;
      rows.add(
          new Row(ids, positions, cuSeqlens ? cu : docIds, layout.shiftLabels() ? labels : null));
    }
    return rows;
  }

  /** Padded rows, one document (or, split, each part of it) per row. */
  static List<Row> padded(List<long[]> documents, TokenLayout layout) {
    int length = layout.length();
    List<Row> rows = new ArrayList<>();
    for (long[] document : documents) {
      long[] doc = streamed(document, layout);
      for (int from = 0; from < doc.length || from == 0; from += length) {
        long[] ids = new long[length];
        int[] positions = new int[length];
        int[] mask = new int[length];
        long[] labels = new long[length];
        Arrays.fill(ids, layout.padToken());
        Arrays.fill(labels, TokenLayout.IGNORE_LABEL);
        for (int i = 0; i < length && from + i < doc.length; i++) {
          ids[i] = doc[from + i];
          positions[i] = from + i;
          mask[i] = 1;
          labels[i] = from + i + 1 < doc.length ? doc[from + i + 1] : TokenLayout.IGNORE_LABEL;
        }
        rows.add(new Row(ids, positions, mask, layout.shiftLabels() ? labels : null));
        if (doc.length == 0) {
          break;
        }
      }
    }
    return rows;
  }
}
