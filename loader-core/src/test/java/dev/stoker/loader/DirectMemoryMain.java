package dev.stoker.loader;

/**
 * Runs loaders whose slots do not all fit in the JVM's direct memory (start it with a small {@code
 * -XX:MaxDirectMemorySize}): with room for the slots the workers need, the loader goes on with
 * fewer; without, the consumer gets the allocation failure at its batch. The consumer is slow, so
 * that the workers want every slot of the prefetch window. Prints what happened; never hangs.
 */
public final class DirectMemoryMain {
  private DirectMemoryMain() {}

  /** 4096 floats x 512 rows: 8 MiB slots. */
  private static final Schema SCHEMA = Schema.of(Field.of("x", DType.FLOAT32, 4096));

  public static void main(String[] args) throws InterruptedException {
    MapDataset dataset = ArrayDataset.of(SCHEMA, 512 * 12, i -> new Object[] {new float[4096]});
    for (int workers : new int[] {2, 8}) {
      LoaderOptions options =
          LoaderOptions.builder()
              .batchSize(512)
              .numWorkers(workers)
              .prefetchFactor(4)
              .maxHostBytes(1L << 30)
              .name("direct-" + workers)
              .build();
      try (DataLoader loader = new DataLoader(dataset, options)) {
        int batches = 0;
        for (Batch batch : loader.epoch(0)) {
          batches++;
          Thread.sleep(30); // a slow consumer: the workers fill ahead and want every slot
        }
        System.out.println(
            "workers="
                + workers
                + ": "
                + batches
                + " batches with "
                + loader.slotsAllocated()
                + " slots");
      } catch (BatchLoadException e) {
        System.out.println(
            "workers="
                + workers
                + ": "
                + e.stage().label()
                + " failed at batch "
                + e.batch()
                + ": "
                + e.getCause());
      }
    }
    System.out.println("done");
  }
}
