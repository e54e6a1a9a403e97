package dev.stoker.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

class AllocationProbeTest {
  private static volatile Object kept;

  @Test
  void seesWhatTheWindowAllocates() {
    AllocationProbe probe = new AllocationProbe();
    assumeTrue(probe.allocationSupported(), "no per-thread allocation counters in this JVM");

    AllocationProbe.Snapshot start = probe.start();
    kept = new byte[1 << 20];
    AllocationProbe.Usage usage = probe.since(start);

    assertThat(usage.allocatedBytes()).isGreaterThanOrEqualTo(1 << 20);
    assertThat(usage.allocatedPer(4)).isEqualTo(usage.allocatedBytes() / 4.0);
    assertThat(usage.gcCollections()).isNotNegative();
  }

  @Test
  void anUnknownCountGivesNaNPerUnit() {
    assertThat(new AllocationProbe.Usage(-1, -1, -1).allocatedPer(10)).isNaN();
  }
}
