package dev.stoker.loader;

import java.util.Arrays;

/**
 * One column of a batch in device memory: what a CUDA consumer needs to wrap it as a tensor without
 * copying.
 *
 * @param name the field's name
 * @param dtype the element type
 * @param shape the batch's shape of the column: {@code [batchSize, ...field shape]} (all rows, of
 *     which the batch's {@code size()} are valid)
 * @param address the device address of the column's first byte
 * @param bytes the column's length in bytes
 */
public record DeviceColumn(String name, DType dtype, int[] shape, long address, long bytes) {
  public DeviceColumn {
    shape = shape.clone();
  }

  @Override
  public int[] shape() {
    return shape.clone();
  }

  @Override
  public String toString() {
    return String.format(
        "DeviceColumn[%s: %s%s at 0x%x, %d bytes]",
        name, dtype.label(), Arrays.toString(shape).replace(" ", ""), address, bytes);
  }
}
