package dev.stoker.loader.memory;

/**
 * How many host slots a loader wants, needs and may have.
 *
 * <ul>
 *   <li>Wanted: the prefetch window, plus the batch the consumer holds, or with a device the two
 *       batches being copied (one in flight while the next is issued behind it; the consumer then
 *       holds device memory, not a host slot).
 *   <li>Needed: one per worker and one more (the consumer's, or the one in copy), below which the
 *       workers could not all run. Loading in the caller's thread needs one slot only: the batch
 *       before is returned first.
 *   <li>Allowed: as many wanted slots as {@code maxHostBytes} holds.
 * </ul>
 *
 * A stream of unknown length wants and needs one slot more: to tell whether another batch comes,
 * the consumer takes it while it still holds the one before.
 *
 * @param slotBytes bytes of one slot (one whole batch)
 */
public record SlotBudget(int slotBytes, int wanted, int needed, int allowed) {
  /**
   * The most batches a loader has in flight, whatever {@code numWorkers x prefetchFactor} says:
   * beyond this a deeper prefetch buys nothing and only costs bookkeeping.
   */
  public static final int MAX_IN_FLIGHT = 4096;

  /**
   * The budget for a loader with {@code numWorkers} workers and a prefetch window of {@code
   * prefetchWindow} batches, delivering to a device through a transfer stage or not.
   *
   * @param lookahead whether the consumer looks one batch ahead (a stream of unknown length)
   * @param batchText the batch a slot holds, for the error message (e.g. {@code 64 x [image:
   *     float32[3,64,64]]})
   * @throws IllegalArgumentException if {@code maxHostBytes} holds fewer slots than needed, or the
   *     workers would need more slots than an int counts
   */
  public static SlotBudget of(
      int slotBytes,
      long maxHostBytes,
      int numWorkers,
      int prefetchWindow,
      boolean transfer,
      boolean lookahead,
      String batchText) {
    return of(
        slotBytes, maxHostBytes, numWorkers, prefetchWindow, transfer, lookahead, 0, batchText);
  }

  /**
   * As {@link #of(int, long, int, int, boolean, boolean, String)}, with a slot more for each of
   * {@code keptAhead} batches the consumer keeps open besides the one it works on (see {@code
   * BatchIterator.nextKept()}).
   */
  public static SlotBudget of(
      int slotBytes,
      long maxHostBytes,
      int numWorkers,
      int prefetchWindow,
      boolean transfer,
      boolean lookahead,
      int keptAhead,
      String batchText) {
    if (keptAhead < 0 || keptAhead > MAX_IN_FLIGHT) {
      throw new IllegalArgumentException(
          "keptAhead: " + keptAhead + " (expected: 0 <= " + "keptAhead <= " + MAX_IN_FLIGHT + ")");
    }
    boolean inline = numWorkers == 0;
    int extra = (lookahead ? 1 : 0) + keptAhead;
    long wanted =
        extra
            + (inline
                ? (transfer ? 2 : 1)
                : (long) Math.min(prefetchWindow, MAX_IN_FLIGHT) + (transfer ? 2 : 1));
    long needed = extra + (inline ? 1 : (long) numWorkers + 1);
    if (numWorkers < 0 || needed > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          String.format(
              "numWorkers: %d (expected: 0 <= " + "numWorkers <= %d)",
              numWorkers, Integer.MAX_VALUE - 1 - extra));
    }
    long fits = maxHostBytes / slotBytes;
    if (fits < needed) {
      throw new IllegalArgumentException(
          String.format(
              "maxHostBytes: %d fits %d slot(s) of %d bytes (one batch of %s) but numWorkers=%d "
                  + "needs at least %d (%s); raise maxHostBytes to at least %d, or lower batchSize "
                  + "or numWorkers",
              maxHostBytes,
              fits,
              slotBytes,
              batchText,
              numWorkers,
              needed,
              (inline
                      ? "the batch being loaded"
                      : "one per worker, one " + (transfer ? "in transfer" : "for the consumer"))
                  + (lookahead ? ", one to look ahead in a stream of unknown length" : "")
                  + (keptAhead > 0 ? ", " + keptAhead + " kept ahead by the consumer" : ""),
              needed * slotBytes));
    }
    int allowed = (int) Math.min(Math.min(wanted, fits), Integer.MAX_VALUE);
    return new SlotBudget(
        slotBytes, (int) Math.min(wanted, Integer.MAX_VALUE), (int) needed, allowed);
  }
}
