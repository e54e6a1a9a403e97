package dev.stoker.spark.shard;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;

/**
 * One column's normalization, per channel (the first dimension of its shape): the mean and std in
 * double and in float32, and for uint8 the table of the 256 results per channel, computed with the
 * float32 arithmetic of {@link Normalization}. Shared by the sample path ({@code NormalizedColumn})
 * and the chunk path ({@link RowNormalizer}).
 */
final class NormalizedChannels {
  final DType dtype;
  final int channels;

  /** Values per channel. */
  final int plane;

  final double[] mean;
  final double[] std;
  final float[] meanF;
  final float[] stdF;

  /** uint8's results, {@code table[c][x]}; null for other dtypes. */
  final float[][] table;

  /**
   * @throws IllegalArgumentException if {@code normalization} does not apply to {@code column}
   */
  NormalizedChannels(Field column, Normalization normalization) {
    normalization.check(column);
    this.dtype = column.dtype();
    this.channels = column.shape()[0];
    this.plane = column.elements() / channels;
    this.mean = new double[channels];
    this.std = new double[channels];
    this.meanF = new float[channels];
    this.stdF = new float[channels];
    for (int c = 0; c < channels; c++) {
      mean[c] = normalization.mean(c);
      std[c] = normalization.std(c);
      meanF[c] = (float) mean[c];
      stdF[c] = (float) std[c];
    }
    this.table = dtype == DType.UINT8 ? new float[channels][256] : null;
    if (table != null) {
      for (int c = 0; c < channels; c++) {
        for (int x = 0; x < 256; x++) {
          table[c][x] = ((float) x / 255f - meanF[c]) / stdF[c];
        }
      }
    }
  }
}
