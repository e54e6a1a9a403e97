package dev.stoker.loader.stats;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.Field;

/**
 * Per-channel statistics of one field over an epoch of a loader: the field is read as
 * channels-first {@code [C, ...]} (a scalar field is one channel). On several ranks, compute each
 * rank's share with its own loader (with {@code dropLast}, so that no sample is counted twice) and
 * {@link ChannelStats#merge merge} the results.
 */
public final class FieldStats {
  private FieldStats() {}

  /**
   * Statistics of {@code field} over every valid row of {@code loader}'s epoch {@code epoch}.
   * float32 values are taken as they are; uint8 values are multiplied by {@code uint8Scale} (e.g.
   * {@code 1/255.0} for pixels in [0,1]).
   *
   * @throws IllegalArgumentException for a field of another dtype
   */
  public static ChannelStats compute(
      DataLoader loader, String field, int epoch, double uint8Scale) {
    int index = loader.layout().schema().indexOf(field);
    Field f = loader.layout().schema().field(index);
    if (f.dtype() != DType.FLOAT32 && f.dtype() != DType.UINT8) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s' is %s%s (expected: float32 or uint8 for normalization statistics)",
              f.name(), f.dtype().label(), f.shapeText()));
    }
    int[] shape = f.shape();
    int channels = shape.length == 0 ? 1 : shape[0];
    int spatial = f.elements() / channels;
    ChannelStats stats = new ChannelStats(channels);
    float[] floats = f.dtype() == DType.FLOAT32 ? new float[f.elements()] : null;
    byte[] bytes = f.dtype() == DType.UINT8 ? new byte[f.elements()] : null;
    for (Batch batch : loader.epoch(epoch)) {
      for (int row = 0; row < batch.size(); row++) {
        if (floats != null) {
          batch.copyFloats(index, row, floats, 0);
          stats.addChannelsFirst(floats, 0, spatial);
        } else {
          batch.copyBytes(index, row, bytes, 0);
          stats.addChannelsFirst(bytes, 0, spatial, uint8Scale);
        }
      }
    }
    return stats;
  }
}
