package dev.stoker.spark.parquet;

import java.io.IOException;

/**
 * Bytes of a page that do not hold what the page says (a run past the page's end, a length larger
 * than the bytes left): thrown by the decoders of a page's parts, which know the page only, and
 * turned by {@link ChunkDecoder} into an error naming the file, the column and the page's byte in
 * the file.
 */
public final class PageFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  PageFormatException(String message) {
    super(message);
  }
}
