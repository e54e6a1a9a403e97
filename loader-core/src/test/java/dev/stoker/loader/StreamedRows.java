package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.device.HostCopyDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/** Reads the batches of a {@link TestStream}, checking every row and the zeros after them. */
final class StreamedRows {
  private StreamedRows() {}

  /**
   * The rows of a batch (its labels), checking that every field of each row agrees and that the
   * rows past its size are zero; read on the host, or in the memory of a {@link HostCopyDevice}.
   */
  static long[] rows(Batch batch) {
    ByteBuffer memory =
        batch.onDevice()
            ? ((HostCopyDevice.Buffer) batch.deviceBuffer()).memory().bytes().duplicate()
            : batch.buffer();
    memory.order(ByteOrder.nativeOrder());
    BatchLayout layout = batch.layout();
    long[] labels = new long[batch.size()];
    for (int r = 0; r < batch.size(); r++) {
      long label = memory.getLong(layout.rowOffset(TestStream.LABEL, r));
      int x = layout.rowOffset(TestStream.X, r);
      boolean ok =
          memory.getFloat(x) == (float) label
              && memory.getFloat(x + 4) == (float) label + 0.25f
              && memory.getFloat(x + 8) == (float) label + 0.5f;
      for (int j = 0; j < 5; j++) {
        ok &= memory.get(layout.rowOffset(TestStream.PIX, r) + j) == TestStream.pix(label, j);
      }
      if (!ok) {
        throw new AssertionError(
            "row " + r + " of " + batch + " (label " + label + "): its fields disagree");
      }
      labels[r] = label;
    }
    for (int f = 0; f < TestStream.SCHEMA.size(); f++) {
      for (int at = layout.rowOffset(f, batch.size());
          at < layout.rowOffset(f, batch.capacity());
          at++) {
        if (memory.get(at) != 0) {
          throw new AssertionError(
              "field " + f + " of " + batch + ": byte " + at + " past its rows is not zero");
        }
      }
    }
    return labels;
  }

  /** An epoch's batches, checked with {@link #rows}: their sizes, and their rows in order. */
  record Epoch(List<Integer> sizes, List<Long> labels) {
    static Epoch of(Iterable<Batch> batches) {
      List<Integer> sizes = new ArrayList<>();
      List<Long> labels = new ArrayList<>();
      for (Batch batch : batches) {
        assertThat(batch.index()).as("batch index").isEqualTo(sizes.size());
        sizes.add(batch.size());
        for (long label : rows(batch)) {
          labels.add(label);
        }
      }
      return new Epoch(sizes, labels);
    }
  }

  /** 0, 1, ..., n - 1. */
  static List<Long> range(long n) {
    List<Long> list = new ArrayList<>();
    for (long i = 0; i < n; i++) {
      list.add(i);
    }
    return list;
  }
}
