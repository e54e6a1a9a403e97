package dev.stoker.spark.run.shard;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.SampleWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;

/**
 * Writes one shard column to the batch as normalized float32, a piece of a channel at a time
 * through per-thread scratch arrays: nothing is allocated per sample. uint8 values go through a
 * table of the 256 results per channel, computed with the same float32 arithmetic.
 */
final class NormalizedColumn {
  /** Values converted per step: bounds the scratch arrays of each worker thread. */
  private static final int PIECE = 8192;

  private final int column;
  private final DType dtype;
  private final int channels;
  private final int plane;
  private final MappedShard shard;
  private final float[][] table;
  private final float[] meanF;
  private final float[] stdF;
  private final double[] mean;
  private final double[] std;
  private final FloatBuffer[] floats;
  private final DoubleBuffer[] doubles;
  private final ThreadLocal<Scratch> scratch;

  NormalizedColumn(MappedShard shard, int column, Normalization normalization) {
    Field field = shard.layout().schema().field(column);
    normalization.check(field);
    this.shard = shard;
    this.column = column;
    this.dtype = field.dtype();
    this.channels = field.shape()[0];
    this.plane = field.elements() / channels;
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
    this.table = dtype == DType.UINT8 ? tables(meanF, stdF) : null;
    ByteBuffer[] segments = shard.segments(column);
    this.floats = dtype == DType.FLOAT32 ? new FloatBuffer[segments.length] : null;
    this.doubles = dtype == DType.FLOAT64 ? new DoubleBuffer[segments.length] : null;
    for (int s = 0; s < segments.length; s++) {
      ByteBuffer segment = segments[s].duplicate().order(ByteOrder.nativeOrder());
      if (floats != null) {
        floats[s] = segment.asFloatBuffer();
      } else if (doubles != null) {
        doubles[s] = segment.asDoubleBuffer();
      }
    }
    int piece = Math.min(PIECE, plane);
    this.scratch = ThreadLocal.withInitial(() -> new Scratch(piece, dtype));
  }

  private static float[][] tables(float[] mean, float[] std) {
    float[][] tables = new float[mean.length][256];
    for (int c = 0; c < mean.length; c++) {
      for (int x = 0; x < 256; x++) {
        tables[c][x] = ((float) x / 255f - mean[c]) / std[c];
      }
    }
    return tables;
  }

  /** Writes row {@code shardRow} of the column, normalized, as the sample's field. */
  void write(long shardRow, SampleWriter out) {
    Scratch s = scratch.get();
    int segment = shard.segmentIndex(column, shardRow);
    int offset = shard.offset(column, shardRow);
    for (int c = 0; c < channels; c++) {
      for (int from = 0; from < plane; from += s.out.length) {
        int count = Math.min(s.out.length, plane - from);
        int element = c * plane + from;
        convert(s, c, segment, offset, element, count);
        out.putFloats(column, element, s.out, 0, count);
      }
    }
  }

  private void convert(Scratch s, int c, int segment, int offset, int element, int count) {
    float[] out = s.out;
    if (dtype == DType.UINT8) {
      shard.segments(column)[segment].get(offset + element, s.bytes, 0, count);
      float[] values = table[c];
      byte[] bytes = s.bytes;
      for (int i = 0; i < count; i++) {
        out[i] = values[bytes[i] & 0xff];
      }
    } else if (dtype == DType.FLOAT32) {
      floats[segment].get(offset / Float.BYTES + element, out, 0, count);
      float m = meanF[c];
      float d = stdF[c];
      for (int i = 0; i < count; i++) {
        out[i] = (out[i] - m) / d;
      }
    } else {
      doubles[segment].get(offset / Double.BYTES + element, s.doubles, 0, count);
      double m = mean[c];
      double d = std[c];
      double[] in = s.doubles;
      for (int i = 0; i < count; i++) {
        out[i] = (float) ((in[i] - m) / d);
      }
    }
  }

  /** One worker thread's arrays. */
  private static final class Scratch {
    final float[] out;
    final byte[] bytes;
    final double[] doubles;

    Scratch(int piece, DType dtype) {
      out = new float[piece];
      bytes = dtype == DType.UINT8 ? new byte[piece] : null;
      doubles = dtype == DType.FLOAT64 ? new double[piece] : null;
    }
  }
}
