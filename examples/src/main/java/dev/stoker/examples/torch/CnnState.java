package dev.stoker.examples.torch;

import java.io.Serializable;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The {@link SmallCnn}'s weights and its optimizer's momentum, as two flat arrays in the network's
 * own layout: what travels to the ranks of a Spark stage and back between epochs.
 *
 * @param params every parameter, in {@link SmallCnn.Layout} order
 * @param velocity SGD's momentum buffer, same layout
 */
public record CnnState(float[] params, float[] velocity) implements Serializable {
  public CnnState {
    if (params.length != SmallCnn.Layout.SIZE || velocity.length != SmallCnn.Layout.SIZE) {
      throw new IllegalArgumentException(
          String.format(
              "params: %d, velocity: %d values "
                  + "(expected: %d each, the SmallCnn's parameter count)",
              params.length, velocity.length, SmallCnn.Layout.SIZE));
    }
  }

  /**
   * Fresh weights, the same for every {@code seed} on every rank: PyTorch's default initialization
   * of conv and linear layers (uniform in +-1/sqrt(fan in)); no momentum yet.
   */
  public static CnnState initial(long seed) {
    float[] params = new float[SmallCnn.Layout.SIZE];
    SplittableRandom random = new SplittableRandom(seed);
    for (SmallCnn.Layout.Part part : SmallCnn.Layout.PARTS) {
      double bound = 1 / Math.sqrt(part.fanIn());
      for (int i = part.offset(); i < part.offset() + part.size(); i++) {
        params[i] = (float) ((random.nextDouble() * 2 - 1) * bound);
      }
    }
    return new CnnState(params, new float[SmallCnn.Layout.SIZE]);
  }

  /** CRC-32 of the weights' bits: equal on every rank after every step. */
  public long checksum() {
    return checksum(params);
  }

  static long checksum(float[] values) {
    CRC32 crc = new CRC32();
    byte[] bytes = new byte[4];
    for (float value : values) {
      int bits = Float.floatToRawIntBits(value);
      bytes[0] = (byte) bits;
      bytes[1] = (byte) (bits >>> 8);
      bytes[2] = (byte) (bits >>> 16);
      bytes[3] = (byte) (bits >>> 24);
      crc.update(bytes, 0, 4);
    }
    return crc.getValue();
  }
}
