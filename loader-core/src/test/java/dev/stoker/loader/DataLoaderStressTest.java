package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.stoker.loader.device.HostCopyDevice;
import dev.stoker.loader.memory.HostMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Many loaders with random options, random early exits and random failing samples: every one must
 * deliver its batches in order until it stops, and give back every slot and thread.
 */
class DataLoaderStressTest {
  private static final int ROUNDS = 150;

  @Test
  void shouldReleaseEverythingUnderRandomEarlyExitsAndFailures() {
    Random random = new Random(20261130);
    for (int round = 0; round < ROUNDS; round++) {
      runRound(round, random);
    }
  }

  private static void runRound(int round, Random random) {
    int size = 1 + random.nextInt(300);
    int workers = random.nextInt(5);
    LoaderOptions.Builder options =
        LoaderOptions.builder()
            .batchSize(1 + random.nextInt(16))
            .shuffle(random.nextBoolean())
            .seed(random.nextLong())
            .dropLast(random.nextBoolean())
            .numWorkers(workers)
            .onBadSample(random.nextInt(4) == 0 ? OnBadSample.SKIP : OnBadSample.FAIL)
            .name("stress-" + round);
    if (workers > 0) {
      options.prefetchFactor(1 + random.nextInt(4)).persistentWorkers(random.nextBoolean());
    }
    IndexDataset dataset = new IndexDataset(size).sleepingUpTo(random.nextInt(3) * 50);
    int fault = random.nextInt(8);
    if (fault == 0) {
      dataset.failingOn(random.nextInt(size));
    } else if (fault == 1) {
      dataset.throwingOn(random.nextInt(size), () -> new StackOverflowError("is corrupt"));
    }
    HostCopyDevice device = random.nextInt(4) == 0 ? faultyDevice(fault == 2, random) : null;
    FailingAllocator allocator =
        fault == 3
            ? new FailingAllocator(() -> new InternalError("is corrupt"), 1 + random.nextInt(3))
            : null;
    LoaderOptions built = options.build();
    DataLoader.Builder builder = DataLoader.builder(dataset).options(built);
    if (device != null) {
      builder.device(device);
    }
    if (allocator != null) {
      builder.allocator(allocator);
    }
    DataLoader loader = builder.build();
    String what =
        "round "
            + round
            + ": "
            + built
            + (device == null ? "" : " on hostcopy")
            + " fault "
            + fault;
    int epochs = 1 + random.nextInt(3);
    for (int epoch = 0; epoch < epochs; epoch++) {
      consumeSome(loader, epoch, random, what);
    }
    LoaderLeaks.closeAndCheck(loader);
    if (device != null) {
      assertThat(device.buffersOut()).as(what).isZero();
    }
    if (allocator != null) {
      assertThat(allocator.openBytes()).as(what).isZero();
      allocator.close();
    }
  }

  /** A device whose copy fails once, at a random copy, when {@code failing}. */
  private static HostCopyDevice faultyDevice(boolean failing, Random random) {
    int failAt = failing ? 1 + random.nextInt(20) : -1;
    return new HostCopyDevice() {
      private int copies;

      @Override
      protected void copyBytes(HostMemory source, HostMemory target, int bytes) {
        if (++copies == failAt) {
          throw new InternalError("is corrupt");
        }
        super.copyBytes(source, target, bytes);
      }
    };
  }

  private static void consumeSome(DataLoader loader, int epoch, Random random, String what) {
    int stopAfter = random.nextInt(3) == 0 ? random.nextInt(loader.batchesPerEpoch() + 1) : -1;
    List<Integer> indices = new ArrayList<>();
    try (BatchIterator it = loader.epoch(epoch).iterator()) {
      while (it.hasNext() && indices.size() != stopAfter) {
        Batch batch = it.next();
        indices.add(batch.index());
        IndexDataset.labels(batch);
        if (random.nextBoolean()) {
          batch.close();
        }
      }
    } catch (BatchLoadException expected) {
      assertThat(expected.getMessage()).as(what).contains("is corrupt");
    } catch (RuntimeException e) {
      fail(what + ": " + e, e);
    }
    for (int i = 0; i < indices.size(); i++) {
      assertThat(indices.get(i)).as(what).isEqualTo(i);
    }
    assertThat(loader.slotsOut()).as(what + " epoch " + epoch).isZero();
  }
}
