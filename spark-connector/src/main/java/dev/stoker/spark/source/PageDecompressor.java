package dev.stoker.spark.source;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Decompresses pages into buffers the caller reuses, so that reading a file allocates nothing
 * per page: Snappy (Spark's default codec) straight from array to array, uncompressed pages as
 * they are; other codecs through Parquet's codec factory, which allocates its output.
 */
final class PageDecompressor implements Closeable {
  private final Configuration conf;
  private CodecFactory factory;

  PageDecompressor(Configuration conf) {
    this.conf = conf;
  }

  /**
   * The {@code size} bytes that {@code in[offset, offset + length)} decompress to with
   * {@code codec}, in {@code out} from byte 0 when it is used (it is long enough for Snappy).
   *
   * @throws IOException when the bytes do not decompress to exactly {@code size} bytes
   */
  ByteBuffer decompress(CompressionCodecName codec, byte[] in, int offset, int length,
      int size, byte[] out) throws IOException {
    switch (codec) {
      case UNCOMPRESSED -> {
        if (length != size) {
          throw new IOException("an uncompressed page of " + length + " bytes that says it "
              + "holds " + size);
        }
        return ByteBuffer.wrap(in, offset, length).slice();
      }
      case SNAPPY -> {
        // The length check comes first: Snappy's native code writes as many bytes as the
        // input says, and the array must hold them.
        int declared = Snappy.uncompressedLength(in, offset, length);
        if (declared != size || size > out.length) {
          throw new IOException("a Snappy page that decompresses to " + declared
              + " bytes where its header says " + size);
        }
        int n = Snappy.uncompress(in, offset, length, out, 0);
        if (n != size) {
          throw new IOException("a Snappy page decompressed to " + n + " bytes, " + size
              + " expected");
        }
        return ByteBuffer.wrap(out, 0, size).slice();
      }
      default -> {
        if (factory == null) {
          factory = new CodecFactory(conf, 0);
        }
        ByteBuffer bytes = factory.getDecompressor(codec)
            .decompress(BytesInput.from(in, offset, length), size).toByteBuffer();
        if (bytes.remaining() != size) {
          throw new IOException("a " + codec + " page decompressed to " + bytes.remaining()
              + " bytes, " + size + " expected");
        }
        return bytes.slice();
      }
    }
  }

  /** Whether {@code codec} decompresses into the caller's buffer (else into one of its own). */
  static boolean usesOutput(CompressionCodecName codec) {
    return codec == CompressionCodecName.SNAPPY;
  }

  @Override
  public void close() {
    if (factory != null) {
      factory.release();
      factory = null;
    }
  }
}
