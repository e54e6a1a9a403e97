package dev.stoker.loader.pipeline;

/**
 * What a loader's pipeline is built from, fixed for the loader's life.
 *
 * @param name the loader's name, for threads and messages
 * @param numWorkers worker threads; 0 fills in the consumer's thread
 * @param prefetchFactor batches each worker may have filled ahead
 * @param persistentWorkers one crew of workers for every epoch, instead of one per epoch
 * @param timeoutNanos longest wait of the consumer for one batch; 0 waits without a limit
 * @param transferDepth device batches copied ahead of the consumer
 * @param slotBytes bytes of one batch
 */
public record PipelineConfig(
    String name,
    int numWorkers,
    int prefetchFactor,
    boolean persistentWorkers,
    long timeoutNanos,
    int transferDepth,
    int slotBytes) {

  public PipelineConfig {
    if (numWorkers < 0
        || prefetchFactor <= 0
        || timeoutNanos < 0
        || transferDepth <= 0
        || slotBytes <= 0) {
      throw new IllegalArgumentException(
          "pipeline config: "
              + numWorkers
              + " workers, prefetch "
              + prefetchFactor
              + ", timeout "
              + timeoutNanos
              + " ns, transfer depth "
              + transferDepth
              + ", slot "
              + slotBytes
              + " bytes (expected: workers >= 0, timeout >= 0, others > 0)");
    }
  }
}
