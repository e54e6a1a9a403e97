package dev.stoker.spark.shard;

import dev.stoker.loader.ColumnTarget;
import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import java.nio.ByteBuffer;

/**
 * Writes stored rows of one tensor column into a batch's column as normalized float32, with the
 * arithmetic of {@link Normalization}: the path of rows that reach the loader as column chunks
 * (streamed from Parquet or from the shard cache), as {@code NormalizedColumn} is that of samples.
 * Works a piece of a channel at a time through per-thread scratch arrays; uint8 values go through a
 * table of the 256 results per channel.
 */
public final class RowNormalizer implements RowConverter {
  private static final int PIECE = 8192;

  private final NormalizedChannels norm;
  private final ThreadLocal<float[]> out;
  private final ThreadLocal<double[]> in;

  /**
   * @throws IllegalArgumentException if {@code normalization} does not apply to {@code stored}
   */
  public RowNormalizer(Field stored, Normalization normalization) {
    this.norm = new NormalizedChannels(stored, normalization);
    int piece = Math.min(PIECE, norm.plane);
    this.out = ThreadLocal.withInitial(() -> new float[piece]);
    this.in = ThreadLocal.withInitial(() -> new double[piece]);
  }

  /**
   * Writes the row stored at byte {@code offset} of {@code src} (native order, read with absolute
   * access) to {@code target}, normalized.
   */
  @Override
  public void write(ByteBuffer src, int offset, ColumnTarget target) {
    float[] values = out.get();
    for (int c = 0; c < norm.channels; c++) {
      for (int from = 0; from < norm.plane; from += values.length) {
        int count = Math.min(values.length, norm.plane - from);
        int element = c * norm.plane + from;
        convert(src, offset, c, element, count, values);
        target.putFloats(values, 0, count);
      }
    }
  }

  private void convert(ByteBuffer src, int offset, int c, int element, int count, float[] values) {
    if (norm.dtype == DType.UINT8) {
      float[] results = norm.table[c];
      for (int i = 0; i < count; i++) {
        values[i] = results[src.get(offset + element + i) & 0xff];
      }
    } else if (norm.dtype == DType.FLOAT32) {
      float m = norm.meanF[c];
      float d = norm.stdF[c];
      int at = offset + element * Float.BYTES;
      for (int i = 0; i < count; i++) {
        values[i] = (src.getFloat(at + i * Float.BYTES) - m) / d;
      }
    } else {
      double[] doubles = in.get();
      int at = offset + element * Double.BYTES;
      for (int i = 0; i < count; i++) {
        doubles[i] = src.getDouble(at + i * Double.BYTES);
      }
      double m = norm.mean[c];
      double d = norm.std[c];
      for (int i = 0; i < count; i++) {
        values[i] = (float) ((doubles[i] - m) / d);
      }
    }
  }
}
