package dev.stoker.loader.tokens;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.ColumnTarget;
import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Documents in memory as a stream, in chunks of {@code chunkRows}, each row keyed by its index: ids
 * of int32 or int64 ({@code long[]} each), or text; a null document stays null.
 */
final class DocumentStream implements StreamedDataset {
  private final List<?> documents;
  private final DType dtype;
  private final int chunkRows;

  DocumentStream(List<?> documents, DType dtype, int chunkRows) {
    this.documents = documents;
    this.dtype = dtype;
    this.chunkRows = chunkRows;
  }

  /** Ids as int32. */
  static DocumentStream ids(List<long[]> documents, int chunkRows) {
    return new DocumentStream(documents, DType.INT32, chunkRows);
  }

  @Override
  public Schema schema() {
    return Schema.of(Field.scalar("other", DType.INT32), Field.variable("tokens", dtype));
  }

  @Override
  public long rowCount() {
    return documents.size();
  }

  @Override
  public ChunkStream open(StreamRequest request) {
    return new ChunkStream() {
      private int next;

      @Override
      public ColumnChunk next() {
        if (next >= documents.size()) {
          return null;
        }
        int first = next;
        int rows = Math.min(chunkRows, documents.size() - first);
        next += rows;
        return new ColumnChunk() {
          @Override
          public int rows() {
            return rows;
          }

          @Override
          public void copyTo(int field, int fromRow, ColumnTarget target) {
            throw new AssertionError("field " + field + " is not read");
          }

          @Override
          public ByteBuffer variableValue(int field, int row) {
            Object doc = documents.get(first + row);
            if (doc == null) {
              return null;
            }
            if (doc instanceof String text) {
              return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            }
            long[] ids = (long[]) doc;
            ByteBuffer value =
                ByteBuffer.allocate(ids.length * dtype.byteSize()).order(ByteOrder.nativeOrder());
            for (long id : ids) {
              if (dtype == DType.INT64) {
                value.putLong(id);
              } else {
                value.putInt((int) id);
              }
            }
            return value.flip();
          }

          @Override
          public long rowKey(int row) {
            return first + row;
          }
        };
      }

      @Override
      public void close() {}
    };
  }
}
