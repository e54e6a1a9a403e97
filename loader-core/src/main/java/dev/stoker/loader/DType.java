package dev.stoker.loader;

import java.util.Locale;

/**
 * Element types of a batch column, with their size in bytes. Multi-byte values are stored in native
 * order.
 */
public enum DType {
  UINT8(1),
  INT32(4),
  INT64(8),
  FLOAT32(4),
  FLOAT64(8);

  private final int byteSize;

  DType(int byteSize) {
    this.byteSize = byteSize;
  }

  public int byteSize() {
    return byteSize;
  }

  /** The lower-case name used in schemas and messages, e.g. {@code float32}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a label such as {@code float32} or {@code uint8}. */
  public static DType parse(String label) {
    for (DType type : values()) {
      if (type.label().equalsIgnoreCase(label)) {
        return type;
      }
    }
    throw new IllegalArgumentException(
        "dtype: '" + label + "' (expected one of: uint8, int32, int64, float32, float64)");
  }
}
