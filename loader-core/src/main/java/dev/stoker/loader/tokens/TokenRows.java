package dev.stoker.loader.tokens;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;

/**
 * Fixed-length rows of token ids made from a stream of documents of any length: a streamed dataset
 * over another, whose one document field (ids, or text with a tokenizer) becomes the {@link
 * TokenLayout}'s fields. The rows are a pure function of the documents' stream: a stream in the
 * same order yields the same rows.
 *
 * <p>Packed rows of documents that go on ({@code longDocuments=continue}) can be limited to a span
 * of the stream's tokens: the first {@code skip} passed over, the next {@code take} (a multiple of
 * the row length) placed. That is how ranks share one stream of tokens exactly once, and how a rank
 * resumes in the middle of a document.
 */
public final class TokenRows implements StreamedDataset {
  /**
   * Bytes a chunk of rows aims at: small enough that the loader's copy into slots finds the chunk
   * still in the core's cache (on the 2-core build machine 512 KiB gave 1.22 × the tokens/s of 4
   * MiB, and 1 MiB no more than 512 KiB).
   */
  private static final int CHUNK_BYTES = 1 << 19;

  private final StreamedDataset documents;
  private final int field;
  private final TokenLayout layout;
  private final Schema schema;

  /** The pieces of the stream every epoch packs, or null for all of it. */
  private final Pieces span;

  /** The epoch that resumes, or -1. */
  private final int resumedEpoch;

  /** The pieces the resumed epoch packs, or null. */
  private final Pieces resumed;

  private volatile TokenCounts counts = new TokenCounts();

  /** Threads that tokenize text documents at once. */
  private final int tokenizerThreads;

  /**
   * Pieces of a stream of tokens: {@code skips[i]} tokens passed over, then the next {@code
   * takes[i]} placed, in turn.
   */
  record Pieces(long[] skips, long[] takes) {
    long tokens() {
      long sum = 0;
      for (long take : takes) {
        sum += take;
      }
      return sum;
    }
  }

  private TokenRows(
      StreamedDataset documents,
      int field,
      TokenLayout layout,
      Pieces span,
      int resumedEpoch,
      Pieces resumed,
      int tokenizerThreads) {
    this.tokenizerThreads = tokenizerThreads;
    this.documents = documents;
    this.field = field;
    this.layout = layout;
    this.schema = layout.outputSchema(new Document(layout, documentField()).idType());
    this.span = span;
    this.resumedEpoch = resumedEpoch;
    this.resumed = resumed;
  }

  /**
   * The rows {@code layout} makes of field {@code field} of {@code documents}' rows; the other
   * fields are not read.
   *
   * @throws IllegalArgumentException if the dataset has no such field, or it holds no documents
   */
  public static TokenRows of(StreamedDataset documents, String field, TokenLayout layout) {
    Schema input = documents.schema();
    for (int f = 0; f < input.size(); f++) {
      if (input.field(f).name().equals(field)) {
        return new TokenRows(documents, f, layout, null, -1, null, 1);
      }
    }
    throw new IllegalArgumentException(
        "no field '" + field + "' among the documents' fields " + input + " (expected: one)");
  }

  /**
   * These rows limited to the stream's tokens {@code [skip, skip + take)}: exactly {@code take /
   * length} rows.
   *
   * @throws IllegalArgumentException unless packed rows whose documents go on, {@code skip >= 0}
   *     and {@code take} a multiple of the row length
   */
  public TokenRows span(long skipTokens, long takeTokens) {
    return span(new long[] {skipTokens}, new long[] {takeTokens});
  }

  /**
   * These rows limited to pieces of the stream: {@code skips[i]} tokens passed over (from where the
   * piece before ended), then {@code takes[i]} packed, in turn; exactly {@code sum(takes) / length}
   * rows.
   *
   * @throws IllegalArgumentException as {@link #span(long, long)}, or for arrays of two lengths
   */
  public TokenRows span(long[] skips, long[] takes) {
    return new TokenRows(
        documents, field, layout, pieces(skips, takes), resumedEpoch, resumed, tokenizerThreads);
  }

  /**
   * These rows, but in epoch {@code epoch} only the pieces {@code skips}, {@code takes} (see {@link
   * #span(long[], long[])}): the rest of an epoch resumed mid-way.
   */
  public TokenRows resuming(int epoch, long[] skips, long[] takes) {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= 0)");
    }
    return new TokenRows(
        documents, field, layout, span, epoch, pieces(skips, takes), tokenizerThreads);
  }

  private Pieces pieces(long[] skips, long[] takes) {
    if (layout.mode() != TokenLayout.Mode.PACK
        || layout.longDocuments() != TokenLayout.LongDocuments.CONTINUE) {
      throw new IllegalArgumentException(
          "a span of tokens with "
              + layout
              + " (expected: pack with longDocuments=continue, where rows follow tokens alone)");
    }
    if (skips.length != takes.length) {
      throw new IllegalArgumentException(
          String.format(
              "span of %d skips and %d takes (expected: as many of each)",
              skips.length, takes.length));
    }
    for (int i = 0; i < skips.length; i++) {
      if (skips[i] < 0 || takes[i] < 0 || takes[i] % layout.length() != 0) {
        throw new IllegalArgumentException(
            String.format(
                "span skip %d take %d (expected: skip >= 0, take >= 0 and a multiple of the row "
                    + "length %d)",
                skips[i], takes[i], layout.length()));
      }
    }
    return new Pieces(skips.clone(), takes.clone());
  }

  private Pieces piecesOf(int epoch) {
    return resumed != null && epoch == resumedEpoch ? resumed : span;
  }

  private Field documentField() {
    return documents.schema().field(field);
  }

  /**
   * These rows, their text documents tokenized on {@code threads} threads at once (default 1), e.g.
   * the loader's {@code numWorkers}: byte-pair encoding is the costly part of making rows of text.
   */
  public TokenRows tokenizerThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("tokenizerThreads: " + threads + " (expected: >= 1)");
    }
    return new TokenRows(documents, field, layout, span, resumedEpoch, resumed, threads);
  }

  public TokenLayout layout() {
    return layout;
  }

  /** The figures of the epoch opened last (as it goes; exact once its stream has ended). */
  public TokenCounts counts() {
    return counts;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  /** Rows of a span, one per document of padded rows truncated, else not known before the end. */
  @Override
  public long rowCount() {
    if (span != null) {
      return span.tokens() / layout.length();
    }
    return truncatedOnePerDocument() ? documents.rowCount() : UNKNOWN_ROWS;
  }

  @Override
  public long rowCount(int epoch) {
    Pieces pieces = piecesOf(epoch);
    if (pieces != null) {
      return pieces.tokens() / layout.length();
    }
    return truncatedOnePerDocument() ? documents.rowCount(epoch) : UNKNOWN_ROWS;
  }

  private boolean truncatedOnePerDocument() {
    return layout.mode() == TokenLayout.Mode.PAD
        && layout.longDocuments() == TokenLayout.LongDocuments.TRUNCATE;
  }

  @Override
  public ChunkStream open(StreamRequest request) throws Exception {
    Document doc = new Document(layout, documentField());
    TokenCounts epochCounts = new TokenCounts();
    ChunkStream stream = documents.open(request);
    counts = epochCounts;
    return new TokenStream(
        stream,
        field,
        layout,
        doc,
        chunkRows(doc.idType()),
        piecesOf(request.epoch()),
        epochCounts,
        tokenizerThreads);
  }

  private int chunkRows(DType ids) {
    long rowBytes = schema.field(0).elements() * (long) ids.byteSize() * schema.size();
    return (int) Math.max(1, Math.min(1024, CHUNK_BYTES / Math.max(1, rowBytes)));
  }
}
