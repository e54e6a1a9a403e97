package dev.stoker.loader.pipeline;

import dev.stoker.loader.device.DeviceBuffer;
import dev.stoker.loader.memory.HostMemory;

/**
 * A batch on its way through the pipeline, handed from stage to stage: its carrier (a host slot, or
 * after the transfer a device buffer) and what the carrier holds. One per carrier, made once and
 * reused, so handing batches over allocates nothing.
 */
public final class StagedBatch {
  private final HostMemory host;
  private final DeviceBuffer device;
  private int epoch;
  private int index;
  private int rows;
  private int skipped;

  private StagedBatch(HostMemory host, DeviceBuffer device) {
    this.host = host;
    this.device = device;
  }

  static StagedBatch onHost(HostMemory slot) {
    return new StagedBatch(slot, null);
  }

  static StagedBatch onDevice(DeviceBuffer buffer) {
    return new StagedBatch(null, buffer);
  }

  /** Starts batch {@code index} of {@code epoch} in this carrier. */
  void begin(int epoch, int index) {
    this.epoch = epoch;
    this.index = index;
    this.rows = 0;
    this.skipped = 0;
  }

  /** Records what the writer put in: {@code rows} valid rows, {@code skipped} samples left out. */
  public void filled(int rows, int skipped) {
    this.rows = rows;
    this.skipped = skipped;
  }

  /** Takes over what {@code other} holds, as its copy on another carrier. */
  void copiedFrom(StagedBatch other) {
    this.epoch = other.epoch;
    this.index = other.index;
    this.rows = other.rows;
    this.skipped = other.skipped;
  }

  /** The host slot, or null for a batch on a device. */
  public HostMemory host() {
    return host;
  }

  /** The device buffer, or null for a batch in host memory. */
  public DeviceBuffer device() {
    return device;
  }

  public int epoch() {
    return epoch;
  }

  public int index() {
    return index;
  }

  public int rows() {
    return rows;
  }

  public int skipped() {
    return skipped;
  }

  @Override
  public String toString() {
    return "StagedBatch[epoch "
        + epoch
        + ", batch "
        + index
        + ", "
        + rows
        + " rows"
        + (device != null ? ", on " + device.deviceName() : "")
        + "]";
  }
}
