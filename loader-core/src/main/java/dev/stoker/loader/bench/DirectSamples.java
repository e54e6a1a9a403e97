package dev.stoker.loader.bench;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;

/**
 * Fixed-size samples laid out back to back in direct memory, native order, each 64-byte aligned
 * when the sample size is a multiple of 64: sample {@code i} is {@link #sampleBytes()} bytes of
 * {@link #buffer(int)} from {@link #offset(int)}. Blocks hold at most 1 GiB of whole samples, so
 * any count fits. Closing frees the memory at once; otherwise the garbage collector does.
 */
final class DirectSamples implements AutoCloseable {
  private static final long BLOCK_BYTES = 1L << 30;

  private final int sampleBytes;
  private final int count;
  private final int perBlock;
  private final HostMemory[] blocks;
  private final ByteBuffer[] buffers;

  DirectSamples(int count, int sampleBytes) {
    this.count = count;
    this.sampleBytes = sampleBytes;
    this.perBlock = (int) Math.max(1, Math.min(count, BLOCK_BYTES / sampleBytes));
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
      OutOfMemoryError clear = new OutOfMemoryError(String.format(
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

  @Override
  public void close() {
    for (HostMemory block : blocks) {
      if (block != null) {
        block.close();
      }
    }
  }
}
