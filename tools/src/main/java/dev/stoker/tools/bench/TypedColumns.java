package dev.stoker.tools.bench;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import java.util.SplittableRandom;

/**
 * The data of the {@code typed} workloads: one field of every dtype, each held on the heap as one
 * array of its Java type (sample after sample), so that writing a sample is one typed bulk put per
 * field: {@code putFloats}, {@code putDoubles}, {@code putInts}, {@code putLongs} and {@code
 * putBytes}. Every field is {@value #FIELD_BYTES} bytes per sample.
 */
final class TypedColumns {
  /** Bytes of one sample's value in each field. */
  static final int FIELD_BYTES = 2048;

  static final int FLOATS = 0;
  static final int DOUBLES = 1;
  static final int INTS = 2;
  static final int LONGS = 3;
  static final int BYTES = 4;
  static final Schema SCHEMA =
      Schema.of(
          Field.of("f32", DType.FLOAT32, FIELD_BYTES / Float.BYTES),
          Field.of("f64", DType.FLOAT64, FIELD_BYTES / Double.BYTES),
          Field.of("i32", DType.INT32, FIELD_BYTES / Integer.BYTES),
          Field.of("i64", DType.INT64, FIELD_BYTES / Long.BYTES),
          Field.of("u8", DType.UINT8, FIELD_BYTES));

  /** Bytes of one whole sample. */
  static final int SAMPLE_BYTES = FIELD_BYTES * 5;

  /** Most samples: each field's array must fit in an int index. */
  static final int MAX_SAMPLES = Integer.MAX_VALUE / FIELD_BYTES;

  final int samples;
  final float[] floats;
  final double[] doubles;
  final int[] ints;
  final long[] longs;
  final byte[] bytes;

  TypedColumns(int samples, long seed) {
    ReferenceWorkloads.checkSamples(samples);
    if (samples > MAX_SAMPLES) {
      throw new IllegalArgumentException(
          "samples: "
              + samples
              + " (expected: at most "
              + MAX_SAMPLES
              + " for the typed workloads)");
    }
    this.samples = samples;
    SplittableRandom random = new SplittableRandom(seed);
    this.floats = new float[samples * elements(FLOATS)];
    this.doubles = new double[samples * elements(DOUBLES)];
    this.ints = new int[samples * elements(INTS)];
    this.longs = new long[samples * elements(LONGS)];
    this.bytes = new byte[samples * elements(BYTES)];
    for (int i = 0; i < floats.length; i++) {
      floats[i] = (float) random.nextDouble();
      ints[i] = random.nextInt();
    }
    for (int i = 0; i < doubles.length; i++) {
      doubles[i] = random.nextDouble();
      longs[i] = random.nextLong();
    }
    random.nextBytes(bytes);
  }

  /** Values of {@code field} per sample. */
  static int elements(int field) {
    return SCHEMA.field(field).elements();
  }
}
