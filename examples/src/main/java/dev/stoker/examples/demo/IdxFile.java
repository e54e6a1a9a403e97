package dev.stoker.examples.demo;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * Reads an IDX file (the MNIST format), gzipped or not: unsigned bytes with 1 to 3 dimensions, e.g.
 * images {@code [n, 28, 28]} or labels {@code [n]}.
 *
 * @param shape the dimensions; the first is the item count
 * @param data every value, row-major
 */
public record IdxFile(int[] shape, byte[] data) {
  private static final int UNSIGNED_BYTE = 0x08;

  /** Items in the file: its first dimension. */
  public int count() {
    return shape[0];
  }

  /** Values per item: the product of the other dimensions. */
  public int itemSize() {
    int size = 1;
    for (int d = 1; d < shape.length; d++) {
      size *= shape[d];
    }
    return size;
  }

  /**
   * Reads {@code file}.
   *
   * @throws IOException naming the file when it is not an IDX file of unsigned bytes, or is short
   */
  public static IdxFile read(Path file) throws IOException {
    try (InputStream raw = Files.newInputStream(file);
        InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
        DataInputStream data = new DataInputStream(in)) {
      int magic = data.readInt();
      int type = (magic >>> 8) & 0xFF;
      int dims = magic & 0xFF;
      if ((magic >>> 16) != 0 || type != UNSIGNED_BYTE || dims < 1 || dims > 3) {
        throw new IOException(
            String.format(
                "%s: magic number 0x%08x (expected: an IDX file of "
                    + "unsigned bytes with 1 to 3 dimensions, 0x0000080n)",
                file, magic));
      }
      int[] shape = new int[dims];
      long total = 1;
      for (int d = 0; d < dims; d++) {
        shape[d] = data.readInt();
        total *= shape[d];
        if (shape[d] < 0 || total > Integer.MAX_VALUE) {
          throw new IOException(
              file
                  + ": dimension "
                  + d
                  + " is "
                  + shape[d]
                  + " (expected: a size that fits in memory)");
        }
      }
      byte[] values = new byte[(int) total];
      try {
        data.readFully(values);
      } catch (EOFException e) {
        throw new IOException(file + ": ends before its " + total + " values (truncated?)", e);
      }
      return new IdxFile(shape, values);
    }
  }
}
