package dev.stoker.tools.bench;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Fixed-size samples laid out back to back in direct memory, native order, each 64-byte aligned
 * when the sample size is a multiple of 64: sample {@code i} is {@link #sampleBytes()} bytes of
 * {@link #buffer(int)} from {@link #offset(int)}. Blocks hold at most 1 GiB of whole samples (or
 * one run, see below), so any count fits. Closing frees the memory at once; otherwise the garbage
 * collector does.
 */
final class DirectSamples implements AutoCloseable {
  private static final long BLOCK_BYTES = 1L << 30;

  private final int sampleBytes;
  private final int count;
  private final int perBlock;
  private final HostMemory[] blocks;
  private final ByteBuffer[] buffers;

  DirectSamples(int count, int sampleBytes) {
    this(count, sampleBytes, 1);
  }

  /**
   * Samples whose blocks hold whole runs of {@code run} samples (a run never crosses blocks), so
   * that {@link #slice} can view any run of samples {@code [k * run, (k + 1) * run)}.
   */
  DirectSamples(int count, int sampleBytes, int run) {
    if ((long) run * sampleBytes > DirectAllocator.MAX_BLOCK) {
      throw new IllegalArgumentException(
          String.format(
              "run: %d samples of %d bytes (expected: at most %d bytes in all)",
              run, sampleBytes, DirectAllocator.MAX_BLOCK));
    }
    this.count = count;
    this.sampleBytes = sampleBytes;
    long runs = Math.max(1, BLOCK_BYTES / sampleBytes / run);
    this.perBlock = (int) Math.max(1, Math.min(count, runs * run));
    int blockCount = (count + perBlock - 1) / perBlock;
    this.blocks = new HostMemory[blockCount];
    this.buffers = new ByteBuffer[blockCount];
    try {
      for (int b = 0; b < blockCount; b++) {
        int samples = Math.min(perBlock, count - b * perBlock);
        blocks[b] = DirectAllocator.INSTANCE.allocate(samples * sampleBytes);
        buffers[b] = blocks[b].bytes();
      }
    } catch (OutOfMemoryError e) {
      close();
      OutOfMemoryError clear =
          new OutOfMemoryError(
              String.format(
                  "%d samples of %d bytes need %.0f MB of direct memory: %s; raise "
                      + "-XX:MaxDirectMemorySize or use fewer samples",
                  count, sampleBytes, (double) count * sampleBytes / 1e6, e.getMessage()));
      clear.initCause(e);
      throw clear;
    }
  }

  int count() {
    return count;
  }

  int sampleBytes() {
    return sampleBytes;
  }

  /** The block holding sample {@code sample}. */
  ByteBuffer buffer(int sample) {
    return buffers[sample / perBlock];
  }

  /** Byte offset of sample {@code sample} in its block. */
  int offset(int sample) {
    return (sample % perBlock) * sampleBytes;
  }

  /**
   * A view of samples {@code [first, first + samples)}, native order, which must lie in one block:
   * the run of a constructor's {@code run} that starts at {@code first}, or a part of it.
   */
  ByteBuffer slice(int first, int samples) {
    if (first / perBlock != (first + samples - 1) / perBlock) {
      throw new IllegalArgumentException(
          String.format(
              "samples %d..%d cross a block of %d samples", first, first + samples - 1, perBlock));
    }
    return buffer(first).slice(offset(first), samples * sampleBytes).order(ByteOrder.nativeOrder());
  }

  @Override
  public void close() {
    for (HostMemory block : blocks) {
      if (block != null) {
        block.close();
      }
    }
  }
}
