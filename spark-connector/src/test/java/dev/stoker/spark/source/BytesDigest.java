package dev.stoker.spark.source;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.SampleInput;
import dev.stoker.loader.SampleRandom;
import dev.stoker.loader.SampleTransform;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * A test transform over {@code id} (int64), {@code label} (int32) and {@code data} (variable
 * bytes): writes the id and label through, the value's length, its first 8 bytes zero-padded, its
 * CRC-32, the sample's key and one draw of its {@link SampleRandom}.
 */
public final class BytesDigest implements SampleTransform {
  private static final long serialVersionUID = 1L;

  @Override
  public Schema outputSchema(Schema input) {
    Field data = input.field(input.indexOf("data"));
    if (!data.isVariable()) {
      throw new IllegalArgumentException("field 'data': " + data + " (expected: variable-length)");
    }
    return Schema.of(
        Field.scalar("id", DType.INT64),
        Field.scalar("label", DType.INT32),
        Field.scalar("length", DType.INT32),
        Field.of("head", DType.UINT8, 8),
        Field.scalar("crc", DType.INT64),
        Field.scalar("key", DType.INT64),
        Field.scalar("random", DType.INT64));
  }

  @Override
  public void apply(SampleInput in, SampleWriter out, SampleRandom random) {
    ByteBuffer value = in.value("data");
    int length = value.remaining();
    CRC32 crc = new CRC32();
    crc.update(value.duplicate());
    byte[] head = new byte[8];
    value.get(0, head, 0, Math.min(8, length));
    in.copyTo(in.schema().indexOf("id"), out, 0);
    in.copyTo(in.schema().indexOf("label"), out, 1);
    out.putInt(2, 0, length);
    out.putBytes(3, 0, head, 0, 8);
    out.putLong(4, 0, crc.getValue());
    out.putLong(5, 0, in.key());
    out.putLong(6, 0, random.nextLong());
  }
}
