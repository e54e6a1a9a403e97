package dev.stoker.loader.tokens;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;

/**
 * One epoch's rows made from one epoch's documents, chunk by chunk: the documents are read in the
 * stream's order and, with pieces (packed only), the stream's tokens passed over and placed piece
 * by piece, else all placed. Packed rows leave no row short inside the stream; the tokens of a row
 * left short at its end are counted as the tail.
 */
final class TokenStream implements ChunkStream {
  private final ChunkStream documents;
  private final int field;
  private final TokenLayout layout;
  private final Document doc;
  private final int capacity;
  private final TokenCounts counts;
  private final ColumnBuffers buffers;

  /** The pieces to place, or null for every token. */
  private final TokenRows.Pieces pieces;

  /** The piece being placed. */
  private int piece;

  /** Tokens still to pass over before the piece's first. */
  private long skip;

  /** Tokens of the piece placed. */
  private long placed;

  private ColumnChunk chunk;
  private int row;

  /** The tokenizer of text documents, or null. */
  private final ChunkTokenizer tokenizer;

  /** The chunk's texts as ids, by row, with a tokenizer. */
  private int[][] texts;

  private boolean docOpen;
  private boolean ended;
  private long read;

  /**
   * @param pieces the tokens to pass over and to place, or null to place all there are
   */
  TokenStream(
      ChunkStream documents,
      int field,
      TokenLayout layout,
      Document doc,
      int capacity,
      TokenRows.Pieces pieces,
      TokenCounts counts,
      int tokenizerThreads) {
    this.tokenizer =
        doc.encoding() == null ? null : new ChunkTokenizer(doc.encoding(), tokenizerThreads);
    this.documents = documents;
    this.field = field;
    this.layout = layout;
    this.doc = doc;
    this.capacity = capacity;
    this.pieces = pieces;
    this.counts = counts;
    this.buffers = new ColumnBuffers(RowBuilder.columnBytes(layout, doc.wide(), capacity));
    this.skip = pieces == null || pieces.skips().length == 0 ? 0 : pieces.skips()[0];
    this.ended = pieces != null && pieces.skips().length == 0;
  }

  /** Tokens the piece being placed still takes, or MAX_VALUE without pieces. */
  private long room() {
    return pieces == null ? Long.MAX_VALUE : pieces.takes()[piece] - placed;
  }

  /** Moves on to the next piece; false after the last. */
  private boolean nextPiece() {
    piece++;
    placed = 0;
    if (piece == pieces.takes().length) {
      return false;
    }
    skip += pieces.skips()[piece];
    if (docOpen) { // the rest of the document the last piece ended in comes first
      int passed = (int) Math.min(skip, doc.left());
      doc.take(passed);
      skip -= passed;
      docOpen = doc.left() > 0;
    }
    return true;
  }

  @Override
  public ColumnChunk next() throws Exception {
    if (ended) {
      return null;
    }
    RowBuilder rows = new RowBuilder(layout, doc.wide(), capacity, counts, buffers);
    boolean packing = layout.mode() == TokenLayout.Mode.PACK;
    while (!rows.full()) {
      if (room() == 0 && !nextPiece()) {
        ended = true;
        break;
      }
      if (room() == 0) {
        continue; // an empty piece
      }
      if (!docOpen && !nextDocument()) {
        end(rows);
        break;
      }
      placed += packing ? rows.pack(doc, room()) : rows.pad(doc);
      docOpen = doc.left() > 0;
    }
    ColumnChunk made = rows.chunk();
    if (made.rows() == 0) {
      made.close(); // hands the buffers back
      return null;
    }
    return made;
  }

  /** At the documents' end: a packed row left short is the tail, short of {@code take} an error. */
  private void end(RowBuilder rows) {
    ended = true;
    counts.addTail(rows.fill());
    if (pieces != null) {
      throw new IllegalStateException(
          String.format(
              "the documents ended after %d of the %d tokens that piece %d of this rank's rows takes "
                  + "(expected: the documents the plan counted; did the input change while it was "
                  + "read?)",
              placed, pieces.takes()[piece], piece));
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
        texts = tokenizer == null ? null : tokenizer.tokenize(chunk, field);
      }
      long key = chunk.rowKey(row);
      key = key >= 0 ? key : -1 - read;
      counts.addCut(texts != null ? doc.take(texts[row], key) : doc.read(chunk, field, row, key));
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
      try {
        documents.close();
      } finally {
        if (tokenizer != null) {
          tokenizer.close();
        }
      }
    }
  }
}
