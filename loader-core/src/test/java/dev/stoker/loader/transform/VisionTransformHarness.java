package dev.stoker.loader.transform;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.nio.ByteBuffer;

/** Runs a spec on encoded values through a real loader: one sample per batch, no workers. */
final class VisionTransformHarness {
  private final String spec;

  VisionTransformHarness(String spec) {
    this.spec = spec;
  }

  /** The image field's bytes for {@code value} as sample {@code key}; the sample's cause if bad. */
  byte[] run(byte[] value, long key) throws Throwable {
    MapDataset dataset =
        new MapDataset() {
          @Override
          public Schema schema() {
            return Schema.of(
                Field.variable("image", DType.UINT8), Field.scalar("label", DType.INT64));
          }

          @Override
          public int size() {
            return (int) key + 1;
          }

          @Override
          public void write(int index, SampleWriter row) {
            row.putVariable(0, value, 0, value.length);
            row.putLong(1, 0, index);
          }
        };
    try (DataLoader loader =
        DataLoader.builder(dataset)
            .options(LoaderOptions.builder().batchSize(1).numWorkers(0).seed(5).build())
            .transform(Transforms.parse(spec))
            .build()) {
      byte[] last = null;
      for (Batch batch : loader.epoch(0)) {
        ByteBuffer column = batch.column("image");
        last = new byte[column.remaining()];
        column.get(last);
        batch.close();
      }
      return last;
    } catch (RuntimeException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof BadImageException) {
          throw t;
        }
      }
      throw e;
    }
  }
}
