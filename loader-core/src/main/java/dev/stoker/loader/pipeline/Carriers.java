package dev.stoker.loader.pipeline;

import dev.stoker.loader.device.DeviceBuffer;
import dev.stoker.loader.memory.HostMemory;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The {@link StagedBatch} of each carrier, made the first time the carrier is seen. Carriers
 * (pooled host slots, an engine's device buffers) live as long as the loader, so this stays small;
 * {@link #clear()} lets go of them when the loader closes, so that a closed loader still referenced
 * keeps none of its memory reachable.
 */
final class Carriers {
  private final Map<Object, StagedBatch> byCarrier = new IdentityHashMap<>();

  synchronized StagedBatch of(HostMemory slot) {
    StagedBatch staged = byCarrier.get(slot);
    if (staged == null) {
      staged = StagedBatch.onHost(slot);
      byCarrier.put(slot, staged);
    }
    return staged;
  }

  synchronized StagedBatch of(DeviceBuffer buffer) {
    StagedBatch staged = byCarrier.get(buffer);
    if (staged == null) {
      staged = StagedBatch.onDevice(buffer);
      byCarrier.put(buffer, staged);
    }
    return staged;
  }

  /** Forgets every carrier. */
  synchronized void clear() {
    byCarrier.clear();
  }
}
