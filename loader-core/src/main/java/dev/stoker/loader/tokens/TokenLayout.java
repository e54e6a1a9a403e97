package dev.stoker.loader.tokens;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * How documents of token ids become fixed-length rows: packed (concatenated and cut every {@code
 * length} tokens) or padded (one document per row), with what each row carries besides the ids.
 *
 * @param mode packed or padded rows
 * @param length tokens per row, > 0
 * @param eodToken the id appended after every document, or -1 for none
 * @param padToken the id of padding (padded rows only)
 * @param shiftLabels whether rows carry {@code labels}: each token's successor in its document, or
 *     {@link #IGNORE_LABEL} where it has none
 * @param boundaries how packed rows mark their documents
 * @param longDocuments what becomes of a document longer than a row
 * @param vocabSize ids must lie in {@code [0, vocabSize)}, or -1 for no check
 * @param maxDocumentTokens a document of more tokens is an error, or -1 for no check
 * @param tokenizer the encoding that turns a text column into ids ({@link Tokenizers}), or null
 */
public record TokenLayout(
    Mode mode,
    int length,
    long eodToken,
    long padToken,
    boolean shiftLabels,
    Boundaries boundaries,
    LongDocuments longDocuments,
    long vocabSize,
    long maxDocumentTokens,
    String tokenizer)
    implements Serializable {
  /** The label of a token whose successor is not in its document: PyTorch's ignore index. */
  public static final int IGNORE_LABEL = -100;

  public static final String INPUT_IDS = "input_ids";
  public static final String POSITION_IDS = "position_ids";
  public static final String DOCUMENT_IDS = "document_ids";
  public static final String CU_SEQLENS = "cu_seqlens";
  public static final String LABELS = "labels";
  public static final String ATTENTION_MASK = "attention_mask";

  /** Rows of concatenated documents, or one document per row. */
  public enum Mode {
    PACK,
    PAD
  }

  /** How a packed row marks where its documents start. */
  public enum Boundaries {
    /** {@code document_ids [length]}: each token's document, counted from 0 in the row. */
    DOCUMENT_IDS,
    /** {@code cu_seqlens [length + 1]}: 0, then each document's end in the row, then length. */
    CU_SEQLENS
  }

  /** What becomes of a document longer than a row. */
  public enum LongDocuments {
    /** Packed: it goes on in the next row, its positions going on. */
    CONTINUE,
    /** Packed: its tokens past the row length are dropped (and counted). */
    CUT,
    /** Padded: its tokens past the row length are dropped (and counted). */
    TRUNCATE,
    /** Padded: it goes on in the next rows, its positions going on. */
    SPLIT
  }

  public TokenLayout {
    if (mode == null || boundaries == null || longDocuments == null) {
      throw new IllegalArgumentException("mode, boundaries and longDocuments must not be null");
    }
    if (length <= 0 || length > (1 << 24)) {
      throw new IllegalArgumentException(
          "length: " + length + " (expected: 1 to " + (1 << 24) + " tokens per row)");
    }
    boolean packing = mode == Mode.PACK;
    if (packing
        != (longDocuments == LongDocuments.CONTINUE || longDocuments == LongDocuments.CUT)) {
      throw new IllegalArgumentException(
          "longDocuments="
              + name(longDocuments)
              + " with "
              + name(mode)
              + " (expected: "
              + (packing ? "continue or cut" : "truncate or split")
              + ")");
    }
    if (vocabSize == 0 || vocabSize < -1) {
      throw new IllegalArgumentException("vocabSize: " + vocabSize + " (expected: > 0)");
    }
    if (maxDocumentTokens == 0 || maxDocumentTokens < -1) {
      throw new IllegalArgumentException(
          "maxDocumentTokens: " + maxDocumentTokens + " (expected: > 0)");
    }
    if (eodToken < -1 || vocabSize > 0 && eodToken >= vocabSize) {
      throw new IllegalArgumentException(
          "eodToken: "
              + eodToken
              + " (expected: an id >= 0"
              + (vocabSize > 0 ? " and < vocabSize = " + vocabSize : "")
              + ")");
    }
  }

  /** Packed rows of {@code length} tokens, documents going on in the next row, marked by ids. */
  public static TokenLayout packed(int length) {
    return new TokenLayout(
        Mode.PACK,
        length,
        -1,
        0,
        false,
        Boundaries.DOCUMENT_IDS,
        LongDocuments.CONTINUE,
        -1,
        -1,
        null);
  }

  /** One document per row of {@code length} tokens, truncated, padded with 0. */
  public static TokenLayout padded(int length) {
    return new TokenLayout(
        Mode.PAD,
        length,
        -1,
        0,
        false,
        Boundaries.DOCUMENT_IDS,
        LongDocuments.TRUNCATE,
        -1,
        -1,
        null);
  }

  public TokenLayout withEodToken(long id) {
    return toBuilder().eodToken(id).build();
  }

  public TokenLayout withPadToken(long id) {
    return toBuilder().padToken(id).build();
  }

  public TokenLayout withShiftLabels(boolean value) {
    return toBuilder().shiftLabels(value).build();
  }

  public TokenLayout withBoundaries(Boundaries value) {
    return toBuilder().boundaries(value).build();
  }

  public TokenLayout withLongDocuments(LongDocuments value) {
    return toBuilder().longDocuments(value).build();
  }

  /** With ids checked against {@code vocab} and documents against {@code maxTokens} (-1: none). */
  public TokenLayout withChecks(long vocab, long maxTokens) {
    return toBuilder().vocabSize(vocab).maxDocumentTokens(maxTokens).build();
  }

  public TokenLayout withTokenizer(String encoding) {
    return toBuilder().tokenizer(encoding).build();
  }

  private Builder toBuilder() {
    Builder b = new Builder();
    b.mode = mode;
    b.length = length;
    b.eodToken = eodToken;
    b.padToken = padToken;
    b.shiftLabels = shiftLabels;
    b.boundaries = boundaries;
    b.longDocuments = longDocuments;
    b.vocabSize = vocabSize;
    b.maxDocumentTokens = maxDocumentTokens;
    b.tokenizer = tokenizer;
    return b;
  }

  /** A copy of a layout with some of its parts changed: what the {@code with} methods use. */
  private static final class Builder {
    private Mode mode;
    private int length;
    private long eodToken;
    private long padToken;
    private boolean shiftLabels;
    private Boundaries boundaries;
    private LongDocuments longDocuments;
    private long vocabSize;
    private long maxDocumentTokens;
    private String tokenizer;

    Builder eodToken(long value) {
      eodToken = value;
      return this;
    }

    Builder padToken(long value) {
      padToken = value;
      return this;
    }

    Builder shiftLabels(boolean value) {
      shiftLabels = value;
      return this;
    }

    Builder boundaries(Boundaries value) {
      boundaries = value;
      return this;
    }

    Builder longDocuments(LongDocuments value) {
      longDocuments = value;
      return this;
    }

    Builder vocabSize(long value) {
      vocabSize = value;
      return this;
    }

    Builder maxDocumentTokens(long value) {
      maxDocumentTokens = value;
      return this;
    }

    Builder tokenizer(String value) {
      tokenizer = value;
      return this;
    }

    TokenLayout build() {
      return new TokenLayout(
          mode,
          length,
          eodToken,
          padToken,
          shiftLabels,
          boundaries,
          longDocuments,
          vocabSize,
          maxDocumentTokens,
          tokenizer);
    }
  }

  /**
   * The dtype of the rows' ids for documents of {@code documents}: int32 from a tokenizer, else the
   * documents' own.
   */
  public DType idType(DType documents) {
    return tokenizer != null ? DType.INT32 : documents;
  }

  /** Whether the row count follows from the documents' and tokens' counts alone. */
  public boolean countable() {
    return mode == Mode.PACK
        ? longDocuments == LongDocuments.CONTINUE
        : longDocuments == LongDocuments.TRUNCATE;
  }

  /** Tokens a document of {@code tokens} ids takes in the stream: the ids and the end token. */
  public long streamTokens(long tokens) {
    return tokens + (eodToken >= 0 ? 1 : 0);
  }

  /**
   * The rows' fields, for ids of {@code ids} (INT32 or INT64): {@code input_ids}, then {@code
   * position_ids} and {@code document_ids} or {@code cu_seqlens} (packed) or {@code attention_mask}
   * (padded), then {@code labels} where asked.
   */
  public Schema outputSchema(DType ids) {
    if (ids != DType.INT32 && ids != DType.INT64) {
      throw new IllegalArgumentException(
          "token ids of " + ids.label() + " (expected: int32 or int64)");
    }
    List<Field> fields = new ArrayList<>();
    fields.add(Field.of(INPUT_IDS, ids, length));
    fields.add(Field.of(POSITION_IDS, DType.INT32, length));
    if (mode == Mode.PACK) {
      fields.add(
          boundaries == Boundaries.DOCUMENT_IDS
              ? Field.of(DOCUMENT_IDS, DType.INT32, length)
              : Field.of(CU_SEQLENS, DType.INT32, length + 1));
    } else {
      fields.add(Field.of(ATTENTION_MASK, DType.INT32, length));
    }
    if (shiftLabels) {
      fields.add(Field.of(LABELS, ids, length));
    }
    return Schema.of(fields);
  }

  /** E.g. {@code pack=2048, eodToken=50256, shiftLabels}. */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(mode == Mode.PACK ? "pack=" : "pad=").append(length);
    if (eodToken >= 0) {
      text.append(", eodToken=").append(eodToken);
    }
    if (mode == Mode.PAD) {
      text.append(", padToken=").append(padToken);
    }
    if (shiftLabels) {
      text.append(", shiftLabels");
    }
    if (mode == Mode.PACK && boundaries == Boundaries.CU_SEQLENS) {
      text.append(", documentBoundaries=cuSeqlens");
    }
    text.append(", longDocuments=").append(name(longDocuments));
    if (tokenizer != null) {
      text.append(", tokenizer=").append(tokenizer);
    }
    return text.toString();
  }

  static String name(Enum<?> value) {
    return value.name().toLowerCase(java.util.Locale.ROOT);
  }
}
