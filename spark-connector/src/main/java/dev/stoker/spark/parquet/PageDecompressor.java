package dev.stoker.spark.parquet;

import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Decompresses pages into buffers the caller reuses, so that reading a file allocates nothing per
 * page: Snappy (Spark's default codec) and GZIP straight from array to array, uncompressed pages as
 * they are; other codecs through Parquet's codec factory, which allocates its output. No page is
 * decompressed to more than its codec can expand its bytes to ({@link #maxExpansion}).
 */
public final class PageDecompressor implements Closeable {
  /** Bytes that hold no page but make up framing (a length, a stream header). */
  private static final int FRAMING_BYTES = 64;

  private final Configuration conf;
  private CodecFactory factory;

  PageDecompressor(Configuration conf) {
    this.conf = conf;
  }

  /**
   * The most bytes {@code length} bytes compressed with {@code codec} can decompress to: Snappy
   * makes at most 64 bytes of 3 (a copy), deflate (GZIP) at most 1032 of 1 (258 bytes of a 2-bit
   * code), LZ4 and LZO at most 255 of 1, ZSTD at most 128 KiB of a 4-byte block; {@link
   * Long#MAX_VALUE} for a codec without such a bound (Brotli), which only its values bound.
   */
  static long maxExpansion(CompressionCodecName codec, int length) {
    long ratio =
        switch (codec) {
          case UNCOMPRESSED -> 1;
          case SNAPPY -> 22;
          case GZIP -> 1032;
          case LZ4, LZ4_RAW, LZO -> 256;
          case ZSTD -> 32768;
          default -> -1;
        };
    return ratio < 0 ? Long.MAX_VALUE : ratio * Math.max(0, length) + FRAMING_BYTES;
  }

  /**
   * The {@code size} bytes that {@code in[offset, offset + length)} decompress to with {@code
   * codec}, in {@code out} from byte 0 when it is used (it is long enough for them).
   *
   * @throws IOException when the bytes do not decompress to exactly {@code size} bytes
   */
  ByteBuffer decompress(
      CompressionCodecName codec, byte[] in, int offset, int length, int size, byte[] out)
      throws IOException {
    if (size < 0 || size > maxExpansion(codec, length)) {
      throw new IOException(
          length
              + " bytes that say they decompress to "
              + size
              + " (expected: at most "
              + maxExpansion(codec, length)
              + ")");
    }
    switch (codec) {
      case UNCOMPRESSED -> {
        if (length != size) {
          throw new IOException(
              "an uncompressed page of " + length + " bytes that says it " + "holds " + size);
        }
        return ByteBuffer.wrap(in, offset, length).slice();
      }
      case SNAPPY -> {
        // The length check comes first: Snappy's native code writes as many bytes as the
        // input says, and the array must hold them.
        int declared = Snappy.uncompressedLength(in, offset, length);
        if (declared != size || size > out.length) {
          throw new IOException(
              "a Snappy page that decompresses to "
                  + declared
                  + " bytes where its header says "
                  + size);
        }
        int n = Snappy.uncompress(in, offset, length, out, 0);
        if (n != size) {
          throw new IOException(
              "a Snappy page decompressed to " + n + " bytes, " + size + " expected");
        }
        return ByteBuffer.wrap(out, 0, size).slice();
      }
      case GZIP -> {
        return gunzip(in, offset, length, size, out);
      }
      default -> {
        if (factory == null) {
          factory = new CodecFactory(conf, 0);
        }
        ByteBuffer bytes =
            factory
                .getDecompressor(codec)
                .decompress(BytesInput.from(in, offset, length), size)
                .toByteBuffer();
        if (bytes.remaining() != size) {
          throw new IOException(
              "a "
                  + codec
                  + " page decompressed to "
                  + bytes.remaining()
                  + " bytes, "
                  + size
                  + " expected");
        }
        return bytes.slice();
      }
    }
  }

  /** GZIP members (Hadoop's codec writes one) into {@code out}: exactly {@code size} bytes. */
  private static ByteBuffer gunzip(byte[] in, int offset, int length, int size, byte[] out)
      throws IOException {
    try (GZIPInputStream gzip =
        new GZIPInputStream(new ByteArrayInputStream(in, offset, length), FRAMING_BYTES)) {
      int n = gzip.readNBytes(out, 0, size);
      if (n != size || gzip.read() >= 0) {
        throw new IOException(
            "a GZIP page that decompresses to "
                + (n != size ? n + " bytes" : "more than " + size + " bytes")
                + " where its header says "
                + size);
      }
    }
    return ByteBuffer.wrap(out, 0, size).slice();
  }

  /** Whether {@code codec} decompresses into the caller's buffer (else into one of its own). */
  static boolean usesOutput(CompressionCodecName codec) {
    return codec == CompressionCodecName.SNAPPY || codec == CompressionCodecName.GZIP;
  }

  @Override
  public void close() {
    if (factory != null) {
      factory.release();
      factory = null;
    }
  }
}
