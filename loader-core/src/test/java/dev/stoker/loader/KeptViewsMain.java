package dev.stoker.loader;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps every view a user can get (batch buffers and columns, a dataset's raw slot view) past their
 * batches, epochs without persistent workers, and the loader's close; then makes the garbage
 * collector busy and reads them all. A loader that freed memory under a view would crash this JVM.
 */
public final class KeptViewsMain {
  private KeptViewsMain() {}

  public static void main(String[] args) {
    List<ByteBuffer> kept = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      MapDataset keeping =
          new MapDataset() {
            // Rows of 64 KiB: slots of 512 KiB, which the C library maps and unmaps on their own,
            // so that reading one after it was freed would fault.
            private final Schema schema =
                Schema.of(Field.of("x", DType.FLOAT32, 16384), Field.scalar("label", DType.INT64));
            private final float[] values = new float[16384];

            @Override
            public Schema schema() {
              return schema;
            }

            @Override
            public int size() {
              return 96;
            }

            @Override
            public void write(int index, SampleWriter row) {
              row.putFloats(0, values, 0, values.length);
              row.putLong(1, 0, index);
              if (index % 20 == 0) {
                synchronized (kept) {
                  kept.add(row.bytes());
                }
              }
            }
          };
      DataLoader loader =
          new DataLoader(
              keeping,
              LoaderOptions.builder().batchSize(8).numWorkers(2).prefetchFactor(3).build());
      for (int epoch = 0; epoch < 4; epoch++) {
        for (Batch batch : loader.epoch(epoch)) {
          synchronized (kept) {
            kept.add(batch.buffer());
            kept.add(batch.column("x"));
          }
        }
      }
      loader.close();
    }
    for (int i = 0; i < 20; i++) {
      byte[][] garbage = new byte[64][];
      for (int g = 0; g < garbage.length; g++) {
        garbage[g] = new byte[1 << 16];
      }
      System.gc();
    }
    long bytes = 0;
    long checksum = 0;
    synchronized (kept) {
      for (ByteBuffer view : kept) {
        for (int i = 0; i < view.limit(); i++) {
          checksum += view.get(i);
          bytes++;
        }
      }
    }
    System.out.println("read " + bytes + " bytes of " + kept.size() + " views (" + checksum + ")");
  }
}
