package dev.stoker.loader.tokens;

import com.knuddels.jtokkit.api.Encoding;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * One document's tokens as rows take them: its ids (read from a chunk's variable-length value, or
 * tokenized from its text), then the end token where the layout has one, and how many of them rows
 * took so far. Reused from document to document by one stream.
 */
final class Document {
  private final TokenLayout layout;
  private final Field field;
  private final boolean wide;
  private final Encoding encoding;
  private int[] ids32 = new int[256];
  private long[] ids64 = new long[0];
  private int length;
  private int placed;
  private long key;

  /**
   * @param field the documents' field: variable-length INT32 or INT64 ids, or UINT8 text with the
   *     layout's tokenizer
   */
  Document(TokenLayout layout, Field field) {
    this.layout = layout;
    this.field = field;
    this.wide = field.dtype() == DType.INT64;
    this.encoding = layout.tokenizer() == null ? null : Tokenizers.encoding(layout.tokenizer());
    if (!field.isVariable()
        || (encoding == null) != (field.dtype() != DType.UINT8)
        || field.dtype() == DType.FLOAT32
        || field.dtype() == DType.FLOAT64) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s' %s%s: the documents must be a variable-length field of int32 or int64 "
                  + "ids (array<int>, array<smallint> or array<bigint>), or of text (string) with "
                  + "a tokenizer (expected: %s)",
              field.name(),
              field.dtype().label(),
              field.shapeText(),
              encoding == null ? "ids, or set tokenizer for text" : "text, or no tokenizer"));
    }
  }

  /** The ids' dtype in rows. */
  DType idType() {
    return layout.idType(field.dtype());
  }

  /**
   * Reads row {@code row} of {@code chunk} ({@code f} the field's index) as the document whose key
   * is {@code key} (its ordinal in the input; {@code -1 - p} for position {@code p} in the stream):
   * checks its ids, appends the end token, cuts it where the layout says.
   *
   * @return the tokens cut off (0 for none)
   */
  long read(ColumnChunk chunk, int f, int row, long key) throws Exception {
    this.key = key;
    ByteBuffer value = chunk.variableValue(f, row);
    if (value == null) {
      throw bad("is null", "a document's ids or text; filter out nulls");
    }
    value = value.duplicate().order(ByteOrder.nativeOrder());
    if (encoding != null) {
      byte[] bytes = new byte[value.remaining()];
      value.get(bytes);
      return take(Tokenizers.encode(encoding, new String(bytes, StandardCharsets.UTF_8)), key);
    }
    int size = field.dtype().byteSize();
    if (value.remaining() % size != 0) {
      throw bad(
          "holds " + value.remaining() + " bytes",
          "a multiple of " + size + " bytes, whole " + field.dtype().label() + " ids");
    }
    int ids = value.remaining() / size;
    ensure(ids + 1);
    if (wide) {
      value.asLongBuffer().get(ids64, 0, ids);
    } else {
      value.asIntBuffer().get(ids32, 0, ids);
    }
    return finish(ids);
  }

  /**
   * Takes {@code tokens}, a text's ids (null for a null text), as the document whose key is {@code
   * key}, as {@link #read} does.
   *
   * @return the tokens cut off (0 for none)
   */
  long take(int[] tokens, long key) {
    this.key = key;
    if (tokens == null) {
      throw bad("is null", "a document's ids or text; filter out nulls");
    }
    ensure(tokens.length + 1);
    System.arraycopy(tokens, 0, ids32, 0, tokens.length);
    return finish(tokens.length);
  }

  /**
   * Checks the document's {@code ids} ids, appends the end token and cuts it as the layout says.
   */
  private long finish(int ids) {
    check(ids);
    length = ids;
    if (layout.eodToken() >= 0) {
      set(length++, layout.eodToken());
    }
    placed = 0;
    boolean cuts =
        layout.longDocuments() == TokenLayout.LongDocuments.CUT
            || layout.longDocuments() == TokenLayout.LongDocuments.TRUNCATE;
    if (cuts && length > layout.length()) {
      long cut = length - layout.length();
      length = layout.length();
      return cut;
    }
    return 0;
  }

  /** The encoding of text documents, or null for documents of ids. */
  Encoding encoding() {
    return encoding;
  }

  private void check(int ids) {
    long max = layout.maxDocumentTokens();
    if (max > 0 && ids > max) {
      throw bad(
          "has " + ids + " tokens",
          "at most maxDocumentTokens = " + max + "; raise it, or filter long documents out");
    }
    long vocab = layout.vocabSize();
    if (vocab > 0) {
      for (int i = 0; i < ids; i++) {
        long id = wide ? ids64[i] : ids32[i];
        if (id < 0 || id >= vocab) {
          throw bad(
              "holds id " + id + " at token " + i,
              "ids in [0, vocabSize = " + vocab + "); check the tokenizer, or raise vocabSize");
        }
      }
    }
  }

  private IllegalArgumentException bad(String what, String expected) {
    return new IllegalArgumentException(
        String.format(
            "document %s of field '%s' %s (expected: %s)",
            key >= 0 ? String.valueOf(key) : "at position " + (-1 - key) + " of the stream",
            field.name(),
            what,
            expected));
  }

  private void ensure(int capacity) {
    if (wide) {
      if (ids64.length < capacity) {
        ids64 = new long[Math.max(capacity, ids64.length * 2)];
      }
    } else if (ids32.length < capacity) {
      ids32 = new int[Math.max(capacity, ids32.length * 2)];
    }
  }

  private void set(int i, long id) {
    if (wide) {
      ids64[i] = id;
    } else {
      ids32[i] = (int) id;
    }
  }

  /** Tokens in the document, its end token included. */
  int length() {
    return length;
  }

  /** Tokens rows took so far. */
  int placed() {
    return placed;
  }

  /** Tokens rows have still to take. */
  int left() {
    return length - placed;
  }

  /** Marks {@code count} more tokens as taken (a skip, or a row's share). */
  void take(int count) {
    placed += count;
  }

  long key() {
    return key;
  }

  int[] ids32() {
    return ids32;
  }

  long[] ids64() {
    return ids64;
  }

  boolean wide() {
    return wide;
  }
}
