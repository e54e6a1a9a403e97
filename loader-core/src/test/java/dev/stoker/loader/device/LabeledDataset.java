package dev.stoker.loader.device;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DeviceColumn;
import dev.stoker.loader.Field;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Sample i: "x" = {i, i + 0.25, i + 0.5} (float32), "label" = i (int64). */
final class LabeledDataset implements MapDataset {
  static final Schema SCHEMA =
      Schema.of(Field.of("x", DType.FLOAT32, 3), Field.scalar("label", DType.INT64));

  private final int size;

  LabeledDataset(int size) {
    this.size = size;
  }

  @Override
  public Schema schema() {
    return SCHEMA;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public void write(int index, SampleWriter row) {
    row.putFloat(0, 0, index);
    row.putFloat(0, 1, index + 0.25f);
    row.putFloat(0, 2, index + 0.5f);
    row.putLong(1, 0, index);
  }

  /** The valid rows' labels as the fake device holds them; checks "x" agrees with each. */
  static long[] labelsOnDevice(FakeCudaRuntime runtime, Batch batch) {
    DeviceColumn label = batch.deviceColumn("label");
    DeviceColumn x = batch.deviceColumn("x");
    ByteBuffer labels =
        ByteBuffer.wrap(runtime.read(label.address(), (int) label.bytes()))
            .order(ByteOrder.nativeOrder());
    ByteBuffer xs =
        ByteBuffer.wrap(runtime.read(x.address(), (int) x.bytes())).order(ByteOrder.nativeOrder());
    long[] out = new long[batch.size()];
    for (int r = 0; r < out.length; r++) {
      out[r] = labels.getLong(r * Long.BYTES);
      float first = xs.getFloat(r * 3 * Float.BYTES);
      float third = xs.getFloat((r * 3 + 2) * Float.BYTES);
      if (first != out[r] || third != out[r] + 0.5f) {
        throw new AssertionError(
            "row "
                + r
                + " of "
                + batch
                + ": x = "
                + first
                + ", .., "
                + third
                + " but label "
                + out[r]);
      }
    }
    return out;
  }
}
