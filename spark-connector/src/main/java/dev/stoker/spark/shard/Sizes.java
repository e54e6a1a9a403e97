package dev.stoker.spark.shard;

import java.util.Locale;

/** Byte counts for messages: {@code 6.0 MiB (6291456 bytes)}. */
public final class Sizes {
  private Sizes() {}

  public static String text(long bytes) {
    if (bytes < 1024) {
      return bytes + " bytes";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s (%d bytes)", value, units[unit], bytes);
  }
}
