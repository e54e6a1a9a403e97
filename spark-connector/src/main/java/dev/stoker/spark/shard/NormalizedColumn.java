package dev.stoker.spark.shard;

import dev.stoker.loader.DType;
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
  private final MappedShard shard;
  private final NormalizedChannels norm;
  private final FloatBuffer[] floats;
  private final DoubleBuffer[] doubles;
  private final ThreadLocal<Scratch> scratch;

  NormalizedColumn(MappedShard shard, int column, Normalization normalization) {
    this.shard = shard;
    this.column = column;
    this.norm = new NormalizedChannels(shard.layout().schema().field(column), normalization);
    DType dtype = norm.dtype;
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
    int piece = Math.min(PIECE, norm.plane);
    this.scratch = ThreadLocal.withInitial(() -> new Scratch(piece, dtype));
  }

  /** Writes row {@code shardRow} of the column, normalized, as the sample's field. */
  void write(long shardRow, SampleWriter out) {
    Scratch s = scratch.get();
    int segment = shard.segmentIndex(column, shardRow);
    int offset = shard.offset(column, shardRow);
    for (int c = 0; c < norm.channels; c++) {
      for (int from = 0; from < norm.plane; from += s.out.length) {
        int count = Math.min(s.out.length, norm.plane - from);
        int element = c * norm.plane + from;
        convert(s, c, segment, offset, element, count);
        out.putFloats(column, element, s.out, 0, count);
      }
    }
  }

  private void convert(Scratch s, int c, int segment, int offset, int element, int count) {
    float[] out = s.out;
    if (norm.dtype == DType.UINT8) {
      shard.segments(column)[segment].get(offset + element, s.bytes, 0, count);
      float[] values = norm.table[c];
      byte[] bytes = s.bytes;
      for (int i = 0; i < count; i++) {
        out[i] = values[bytes[i] & 0xff];
      }
    } else if (norm.dtype == DType.FLOAT32) {
      floats[segment].get(offset / Float.BYTES + element, out, 0, count);
      float m = norm.meanF[c];
      float d = norm.stdF[c];
      for (int i = 0; i < count; i++) {
        out[i] = (out[i] - m) / d;
      }
    } else {
      doubles[segment].get(offset / Double.BYTES + element, s.doubles, 0, count);
      double m = norm.mean[c];
      double d = norm.std[c];
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
