package dev.stoker.loader;

/**
 * How many host slots a loader wants, needs and may have. Wanted: the prefetch window, the batch
 * the consumer holds, and the transfer stage's depth plus the one in copy. Needed: one per worker
 * and one for the consumer (plus one in transfer), below which the workers could not all run.
 * Loading in the caller's thread needs one slot only: the batch before is returned first.
 * Allowed: as many wanted slots as {@code maxHostBytes} holds.
 */
record SlotBudget(int slotBytes, int wanted, int needed, int allowed) {

  static SlotBudget of(LoaderOptions options, BatchLayout layout, boolean transfer) {
    int workers = options.numWorkers();
    int transferSlots = transfer ? options.transferDepth() + 1 : 0;
    boolean inline = workers == 0 && !transfer;
    int wanted = inline ? 1 : options.prefetchWindow() + 1 + transferSlots;
    int needed = inline ? 1 : Math.max(1, workers) + 1 + (transfer ? 1 : 0);
    long fits = options.maxHostBytes() / layout.slotBytes();
    if (fits < needed) {
      throw new IllegalArgumentException(String.format(
          "maxHostBytes: %d fits %d slot(s) of %d bytes (one batch of %d x %s) but "
              + "numWorkers=%d needs at least %d (%s); "
              + "raise maxHostBytes to at least %d, or lower batchSize or numWorkers",
          options.maxHostBytes(), fits, layout.slotBytes(), layout.batchSize(),
          layout.schema().fields(), workers, needed,
          inline ? "the batch being loaded" : "one per worker, one for the consumer"
              + (transfer ? ", one in transfer" : ""),
          (long) needed * layout.slotBytes()));
    }
    return new SlotBudget(layout.slotBytes(), wanted, needed, (int) Math.min(wanted, fits));
  }
}
