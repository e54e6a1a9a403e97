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
  /** Bytes a chunk of rows aims at. */
  private static final int CHUNK_BYTES = 1 << 22;

  private final StreamedDataset documents;
  private final int field;
  private final TokenLayout layout;
  private final Schema schema;
  private final long skip;
  private final long take;
  private volatile TokenCounts counts = new TokenCounts();

  private TokenRows(
      StreamedDataset documents, int field, TokenLayout layout, long skip, long take) {
    this.documents = documents;
    this.field = field;
    this.layout = layout;
    this.schema = layout.outputSchema(new Document(layout, documentField()).idType());
    this.skip = skip;
    this.take = take;
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
        return new TokenRows(documents, f, layout, 0, -1);
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
    if (layout.mode() != TokenLayout.Mode.PACK
        || layout.longDocuments() != TokenLayout.LongDocuments.CONTINUE) {
      throw new IllegalArgumentException(
          "a span of tokens with "
              + layout
              + " (expected: pack with longDocuments=continue, where rows follow tokens alone)");
    }
    if (skipTokens < 0 || takeTokens < 0 || takeTokens % layout.length() != 0) {
      throw new IllegalArgumentException(
          String.format(
              "span skip %d take %d (expected: skip >= 0, take >= 0 and a multiple of the row "
                  + "length %d)",
              skipTokens, takeTokens, layout.length()));
    }
    return new TokenRows(documents, field, layout, skipTokens, takeTokens);
  }

  private Field documentField() {
    return documents.schema().field(field);
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
    if (take >= 0) {
      return take / layout.length();
    }
    return truncatedOnePerDocument() ? documents.rowCount() : UNKNOWN_ROWS;
  }

  @Override
  public long rowCount(int epoch) {
    if (take >= 0) {
      return take / layout.length();
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
        stream, field, layout, doc, chunkRows(doc.idType()), skip, take, epochCounts);
  }

  private int chunkRows(DType ids) {
    long rowBytes = schema.field(0).elements() * (long) ids.byteSize() * schema.size();
    return (int) Math.max(1, Math.min(1024, CHUNK_BYTES / Math.max(1, rowBytes)));
  }
}
