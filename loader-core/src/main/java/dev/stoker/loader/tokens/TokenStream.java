package dev.stoker.loader.tokens;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;

/**
 * One epoch's rows made from one epoch's documents, chunk by chunk: the documents are read in the
 * stream's order, the first {@code skip} of their tokens passed over, and (packed) at most {@code
 * take} tokens placed. Packed rows leave no row short inside the stream; the tokens of a row left
 * short at its end are counted as the tail.
 */
final class TokenStream implements ChunkStream {
  private final ChunkStream documents;
  private final int field;
  private final TokenLayout layout;
  private final Document doc;
  private final int capacity;
  private final TokenCounts counts;
  private long skip;
  private final long take;
  private long placed;
  private ColumnChunk chunk;
  private int row;
  private boolean docOpen;
  private boolean ended;
  private long read;

  /**
   * @param take tokens to place, or -1 for all there are
   */
  TokenStream(
      ChunkStream documents,
      int field,
      TokenLayout layout,
      Document doc,
      int capacity,
      long skip,
      long take,
      TokenCounts counts) {
    this.documents = documents;
    this.field = field;
    this.layout = layout;
    this.doc = doc;
    this.capacity = capacity;
    this.skip = skip;
    this.take = take;
    this.counts = counts;
  }

  @Override
  public ColumnChunk next() throws Exception {
    if (ended) {
      return null;
    }
    RowBuilder rows = new RowBuilder(layout, doc.wide(), capacity, counts);
    boolean packing = layout.mode() == TokenLayout.Mode.PACK;
    while (!rows.full()) {
      if (take >= 0 && placed == take) {
        ended = true;
        break;
      }
      if (!docOpen && !nextDocument()) {
        end(rows);
        break;
      }
      placed += packing ? rows.pack(doc, take < 0 ? Long.MAX_VALUE : take - placed) : rows.pad(doc);
      docOpen = doc.left() > 0;
    }
    return rows.rows() == 0 ? null : rows.chunk();
  }

  /** At the documents' end: a packed row left short is the tail, short of {@code take} an error. */
  private void end(RowBuilder rows) {
    ended = true;
    counts.addTail(rows.fill());
    if (take >= 0 && placed < take) {
      throw new IllegalStateException(
          String.format(
              "the documents ended after %d tokens of the %d this rank's rows take (expected: the "
                  + "documents the plan counted; did the input change while it was read?)",
              placed, take));
    }
  }

  /** Reads the next document with tokens left after the skip; false at the documents' end. */
  private boolean nextDocument() throws Exception {
    while (true) {
      while (chunk == null || row == chunk.rows()) {
        closeChunk();
        chunk = documents.next();
        row = 0;
        if (chunk == null) {
          return false;
        }
      }
      long key = chunk.rowKey(row);
      counts.addCut(doc.read(chunk, field, row, key >= 0 ? key : -1 - read));
      row++;
      read++;
      counts.addDocument();
      if (skip > 0) {
        int passed = (int) Math.min(skip, doc.left());
        doc.take(passed);
        skip -= passed;
      }
      if (doc.left() > 0 || layout.mode() == TokenLayout.Mode.PAD) {
        return true; // an empty document is a row of padding: one row per document
      }
    }
  }

  private void closeChunk() throws Exception {
    ColumnChunk open = chunk;
    chunk = null;
    if (open != null) {
      open.close();
    }
  }

  @Override
  public void close() throws Exception {
    try {
      closeChunk();
    } finally {
      documents.close();
    }
  }
}
