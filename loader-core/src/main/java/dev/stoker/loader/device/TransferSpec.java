package dev.stoker.loader.device;

/**
 * What a transfer engine is opened for.
 *
 * @param loader the loader's name, for thread names and messages
 * @param slotBytes bytes of one batch: every copy is at most this long
 * @param depth batches the consumer may have copied ahead; the engine needs this many device
 *     buffers plus one for the batch the consumer holds and one being copied
 */
public record TransferSpec(String loader, int slotBytes, int depth) {
  public TransferSpec {
    if (slotBytes <= 0 || depth <= 0) {
      throw new IllegalArgumentException(
          "slotBytes: " + slotBytes + ", depth: " + depth + " (expected: both > 0)");
    }
  }

  /** Device buffers the engine needs so that the loader never waits for one. */
  public int buffers() {
    return depth + 2;
  }
}
