package dev.stoker.spark.parquet;

/**
 * Joins the CRC-32s (zlib's, as {@link java.util.zip.CRC32} computes them) of consecutive byte
 * ranges into the CRC-32 of the ranges together: {@code crc(a + b) = shift(crc(a)) ^ crc(b)}, where
 * {@code shift} multiplies by {@code x^(8 * length(b))} modulo the polynomial, a linear map of the
 * 32 bits. For one length of {@code b} the map is tabulated (four tables of 256 entries), so a
 * checksum file's sums, one per chunk of a fixed size, join into the sum of a whole read at a few
 * nanoseconds a chunk, and the read is checked with one CRC over all of its bytes, which runs
 * several times faster than one per 512-byte chunk.
 */
final class Crc32Join {
  /** The CRC-32 polynomial, reflected: bit 31 is the coefficient of {@code x^0}. */
  private static final int POLY = 0xEDB88320;

  /** {@code x^(2^k)} modulo the polynomial, for k in 0..31 (the powers repeat with period 32). */
  private static final int[] X_POW_2K = new int[32];

  static {
    int p = 1 << 30; // x^1
    X_POW_2K[0] = p;
    for (int k = 1; k < X_POW_2K.length; k++) {
      p = multiply(p, p);
      X_POW_2K[k] = p;
    }
  }

  private final int length;
  private final int[] tables = new int[4 * 256];

  /** A join of a sum with that of a following range of {@code length} bytes. */
  Crc32Join(int length) {
    if (length <= 0) {
      throw new IllegalArgumentException("length: " + length + " (expected: > 0)");
    }
    this.length = length;
    int op = xPow8n(length);
    for (int k = 0; k < 4; k++) {
      for (int v = 0; v < 256; v++) {
        tables[k * 256 + v] = multiply(op, v << (8 * k));
      }
    }
  }

  /** The length of the second range this join was made for. */
  int length() {
    return length;
  }

  /** The CRC-32 of a range whose sum is {@code first}, followed by {@link #length()} bytes. */
  int join(int first, int second) {
    return tables[first & 0xFF]
        ^ tables[256 + ((first >>> 8) & 0xFF)]
        ^ tables[512 + ((first >>> 16) & 0xFF)]
        ^ tables[768 + (first >>> 24)]
        ^ second;
  }

  /** As {@link #join(int, int)}, for a second range of any {@code length} bytes (slower). */
  static int join(int first, int second, long length) {
    if (length < 0) {
      throw new IllegalArgumentException("length: " + length + " (expected: >= 0)");
    }
    return multiply(xPow8n(length), first) ^ second;
  }

  /** {@code x^(8 * bytes)} modulo the polynomial. */
  private static int xPow8n(long bytes) {
    int p = 1 << 31; // x^0
    int k = 3; // 8 = 2^3
    for (long n = bytes; n != 0; n >>>= 1, k++) {
      if ((n & 1) != 0) {
        p = multiply(X_POW_2K[k & 31], p);
      }
    }
    return p;
  }

  /** {@code a * b} modulo the polynomial; {@code a} must not be 0. */
  private static int multiply(int a, int b) {
    int m = 1 << 31;
    int p = 0;
    while (true) {
      if ((a & m) != 0) {
        p ^= b;
        if ((a & (m - 1)) == 0) {
          return p;
        }
      }
      m >>>= 1;
      b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
    }
  }
}
