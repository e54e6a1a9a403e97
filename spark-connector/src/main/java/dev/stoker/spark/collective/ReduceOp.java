package dev.stoker.spark.collective;

import java.nio.ByteBuffer;

/**
 * The reductions and their element types, with the copies between a caller's array and a chunk of
 * the wire (little-endian). Sums run in the order the caller adds chunks: rank order.
 */
enum ReduceOp {
  SUM_FLOAT(1, "allReduceSum(float[])", Float.BYTES) {
    @Override
    int length(Object values) {
      return ((float[]) values).length;
    }

    @Override
    void put(Object values, int from, int count, ByteBuffer chunk) {
      chunk.asFloatBuffer().put((float[]) values, from, count);
    }

    @Override
    void get(ByteBuffer chunk, Object values, int from, int count) {
      chunk.asFloatBuffer().get((float[]) values, from, count);
    }

    @Override
    void add(ByteBuffer chunk, Object values, int from, int count) {
      float[] sums = (float[]) values;
      java.nio.FloatBuffer in = chunk.asFloatBuffer();
      for (int i = 0; i < count; i++) {
        sums[from + i] += in.get(i);
      }
    }
  },
  MEAN_FLOAT(2, "allReduceMean(float[])", Float.BYTES) {
    @Override
    int length(Object values) {
      return SUM_FLOAT.length(values);
    }

    @Override
    void put(Object values, int from, int count, ByteBuffer chunk) {
      SUM_FLOAT.put(values, from, count, chunk);
    }

    @Override
    void get(ByteBuffer chunk, Object values, int from, int count) {
      SUM_FLOAT.get(chunk, values, from, count);
    }

    @Override
    void add(ByteBuffer chunk, Object values, int from, int count) {
      SUM_FLOAT.add(chunk, values, from, count);
    }

    @Override
    void finish(Object values, int from, int count, int ranks) {
      if (ranks > 1) {
        float[] sums = (float[]) values;
        float divisor = ranks;
        for (int i = from; i < from + count; i++) {
          sums[i] /= divisor;
        }
      }
    }
  },
  SUM_DOUBLE(3, "allReduceSum(double[])", Double.BYTES) {
    @Override
    int length(Object values) {
      return ((double[]) values).length;
    }

    @Override
    void put(Object values, int from, int count, ByteBuffer chunk) {
      chunk.asDoubleBuffer().put((double[]) values, from, count);
    }

    @Override
    void get(ByteBuffer chunk, Object values, int from, int count) {
      chunk.asDoubleBuffer().get((double[]) values, from, count);
    }

    @Override
    void add(ByteBuffer chunk, Object values, int from, int count) {
      double[] sums = (double[]) values;
      java.nio.DoubleBuffer in = chunk.asDoubleBuffer();
      for (int i = 0; i < count; i++) {
        sums[from + i] += in.get(i);
      }
    }
  },
  SUM_LONG(4, "allReduceSum(long[])", Long.BYTES) {
    @Override
    int length(Object values) {
      return ((long[]) values).length;
    }

    @Override
    void put(Object values, int from, int count, ByteBuffer chunk) {
      chunk.asLongBuffer().put((long[]) values, from, count);
    }

    @Override
    void get(ByteBuffer chunk, Object values, int from, int count) {
      chunk.asLongBuffer().get((long[]) values, from, count);
    }

    @Override
    void add(ByteBuffer chunk, Object values, int from, int count) {
      long[] sums = (long[]) values;
      java.nio.LongBuffer in = chunk.asLongBuffer();
      for (int i = 0; i < count; i++) {
        sums[from + i] += in.get(i);
      }
    }
  };

  final int code;
  final String call;
  final int bytes;

  ReduceOp(int code, String call, int bytes) {
    this.code = code;
    this.call = call;
    this.bytes = bytes;
  }

  /** The op sent as {@code code}, or null for a code no rank sends. */
  static ReduceOp ofCode(int code) {
    for (ReduceOp op : values()) {
      if (op.code == code) {
        return op;
      }
    }
    return null;
  }

  abstract int length(Object values);

  /** Copies {@code count} values from {@code from} into {@code chunk} at 0 (byte order kept). */
  abstract void put(Object values, int from, int count, ByteBuffer chunk);

  /** Copies {@code count} values of {@code chunk} at 0 into {@code values} from {@code from}. */
  abstract void get(ByteBuffer chunk, Object values, int from, int count);

  /** Adds {@code count} values of {@code chunk} at 0 to {@code values} from {@code from}. */
  abstract void add(ByteBuffer chunk, Object values, int from, int count);

  /** Turns the sums of {@code ranks} ranks into the result (the mean divides). */
  final void finish(Object values, int ranks) {
    finish(values, 0, length(values), ranks);
  }

  /** {@link #finish(Object, int)} for {@code count} values from {@code from}. */
  void finish(Object values, int from, int count, int ranks) {}
}
