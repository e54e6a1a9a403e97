package dev.stoker.spark.collective;

/**
 * How an all-reduce moves the values: through rank 0 (the star), or around the ring. Every rank
 * gets the same bits either way; the two differ in the order they add the ranks' values, so a world
 * size and an algorithm together fix the result.
 */
public enum AllReduceAlgorithm {
  /**
   * The star below {@link Collective#ringMinBytes} bytes a call (512 KiB per step of the ring: 512
   * KiB for 2 ranks, 1.5 MiB for 4), the ring from there on: a given world size and array length
   * always take the same one.
   */
  AUTO,
  /**
   * Every rank sends its values to rank 0, which adds them in rank order and sends the result back:
   * two messages a call, but rank 0 moves (worldSize - 1) times the values each way.
   */
  STAR,
  /**
   * Reduce-scatter then all-gather around the ring, in frames, each step sending and receiving at
   * once: every rank moves 2 (worldSize - 1) / worldSize times the values each way, whatever the
   * world size, in 2 (worldSize - 1) steps.
   */
  RING
}
