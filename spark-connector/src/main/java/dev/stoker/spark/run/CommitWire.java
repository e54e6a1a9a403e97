package dev.stoker.spark.run;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The frames between ranks and the driver's commit server: a length, the payload, and its
 * HMAC-SHA256 under the run's secret (which Spark sends with the tasks and never crosses this
 * socket), so that nobody without the secret can commit a state or be told one.
 */
final class CommitWire {
  /** Most bytes of a payload: a resumed rank's runs of a large input. */
  static final int MAX_PAYLOAD = 64 << 20;

  private static final int MAC_BYTES = 32;

  private CommitWire() {}

  static void write(DataOutputStream out, byte[] secret, byte[] payload) throws IOException {
    out.writeInt(payload.length);
    out.write(payload);
    out.write(mac(secret, payload));
    out.flush();
  }

  /** The payload of the next frame, its MAC checked. */
  static byte[] read(DataInputStream in, byte[] secret) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > MAX_PAYLOAD) {
      throw new IOException(
          "commit frame of " + length + " bytes (expected: 0 to " + MAX_PAYLOAD + ")");
    }
    byte[] payload = new byte[length];
    in.readFully(payload);
    byte[] mac = new byte[MAC_BYTES];
    in.readFully(mac);
    if (!MessageDigest.isEqual(mac, mac(secret, payload))) {
      throw new IOException(
          "commit frame fails authentication (expected: a frame of this run's "
              + "ranks or driver)");
    }
    return payload;
  }

  private static byte[] mac(byte[] secret, byte[] payload) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return mac.doFinal(payload);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available: " + e, e);
    }
  }
}
