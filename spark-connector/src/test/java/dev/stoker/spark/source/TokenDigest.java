package dev.stoker.spark.source;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.SampleInput;
import dev.stoker.loader.SampleRandom;
import dev.stoker.loader.SampleTransform;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * A test transform over {@code id} (int64) and any number of variable-length int32 or int64 fields
 * (token sequences): writes the id, the sample's key and, for each such field {@code f}, {@code
 * f_length} (its values), {@code f_crc} (the CRC-32 of its values' bytes, native order) and {@code
 * f_head} (its first 4 values as int64, zero-padded).
 */
public final class TokenDigest implements SampleTransform {
  private static final long serialVersionUID = 1L;
  static final int HEAD = 4;

  @Override
  public Schema outputSchema(Schema input) {
    List<Field> out = new ArrayList<>();
    out.add(Field.scalar("id", DType.INT64));
    out.add(Field.scalar("key", DType.INT64));
    for (Field field : input.fields()) {
      if (field.isVariable()) {
        if (field.dtype() != DType.INT32 && field.dtype() != DType.INT64) {
          throw new IllegalArgumentException(
              "field '" + field.name() + "': " + field + " (expected: int32 or int64 values)");
        }
        out.add(Field.scalar(field.name() + "_length", DType.INT32));
        out.add(Field.scalar(field.name() + "_crc", DType.INT64));
        out.add(Field.of(field.name() + "_head", DType.INT64, HEAD));
      }
    }
    return Schema.of(out);
  }

  @Override
  public void apply(SampleInput in, SampleWriter out, SampleRandom random) {
    in.copyTo(in.schema().indexOf("id"), out, 0);
    out.putLong(1, 0, in.key());
    int at = 2;
    for (int f = 0; f < in.schema().fields().size(); f++) {
      Field field = in.schema().field(f);
      if (!field.isVariable()) {
        continue;
      }
      ByteBuffer value = in.value(f);
      int size = field.dtype().byteSize();
      int count = value.remaining() / size;
      CRC32 crc = new CRC32();
      crc.update(value.duplicate());
      out.putInt(at, 0, count);
      out.putLong(at + 1, 0, crc.getValue());
      for (int i = 0; i < HEAD; i++) {
        long v = 0;
        if (i < count) {
          v = size == Long.BYTES ? value.getLong(i * size) : value.getInt(i * size);
        }
        out.putLong(at + 2, i, v);
      }
      at += 3;
    }
  }
}
