package dev.stoker.spark.collective;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cryptography of a meeting, all from the JDK. Rank 0 draws a secret from {@link SecureRandom};
 * it reaches the other ranks through Spark's barrier channel only. On the collective's socket a
 * connecting rank and rank 0 each send a fresh nonce, and each proves that it holds the secret with
 * an HMAC-SHA256 over the transcript (rank, stage attempt, both nonces) under a label of its own
 * side, so that no proof can be replayed or reflected. Both then derive the connection's two
 * AES-256-GCM keys, one per direction, from the secret and the transcript ({@link FrameSeal}); the
 * secret itself never crosses the socket.
 */
final class MeetingCrypto {
  static final int SECRET_BYTES = 32;
  static final int NONCE_BYTES = 16;
  static final int PROOF_BYTES = 32;
  private static final String HMAC = "HmacSHA256";
  private static final SecureRandom RANDOM = new SecureRandom();

  private MeetingCrypto() {}

  /** A new meeting's secret. */
  static byte[] secret() {
    return random(SECRET_BYTES);
  }

  /** A fresh nonce for one handshake. */
  static byte[] nonce() {
    return random(NONCE_BYTES);
  }

  private static byte[] random(int bytes) {
    byte[] value = new byte[bytes];
    RANDOM.nextBytes(value);
    return value;
  }

  /** What both sides of one connection's handshake agree on. */
  static byte[] transcript(int rank, int attempt, byte[] peerNonce, byte[] rootNonce) {
    return ByteBuffer.allocate(8 + 2 * NONCE_BYTES)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(rank)
        .putInt(attempt)
        .put(peerNonce)
        .put(rootNonce)
        .array();
  }

  /** The connecting rank's proof that it holds {@code secret}. */
  static byte[] peerProof(byte[] secret, byte[] transcript) {
    return hmac(secret, "stoker collective: peer proof", transcript);
  }

  /** Rank 0's proof that it holds {@code secret}. */
  static byte[] rootProof(byte[] secret, byte[] transcript) {
    return hmac(secret, "stoker collective: root proof", transcript);
  }

  /**
   * Whether {@code proof} is {@code expected}, in time that does not depend on where they differ.
   */
  static boolean same(byte[] expected, byte[] proof) {
    return MessageDigest.isEqual(expected, proof);
  }

  /**
   * The seals of one connection: index 0 for frames from the connecting rank to rank 0, index 1 for
   * frames from rank 0 to it. Each side builds both and uses one to send, one to receive.
   */
  static FrameSeal[] seals(byte[] secret, byte[] transcript) {
    byte[] master = hmac(secret, "stoker collective: connection keys", transcript);
    return new FrameSeal[] {
      new FrameSeal(hmac(master, "peer to root", new byte[0])),
      new FrameSeal(hmac(master, "root to peer", new byte[0]))
    };
  }

  static byte[] hmac(byte[] key, String label, byte[] data) {
    Mac mac = newMac(key);
    mac.update(label.getBytes(StandardCharsets.US_ASCII));
    mac.update((byte) 0);
    return mac.doFinal(data);
  }

  static Mac newMac(byte[] key) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(new SecretKeySpec(key, HMAC));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(HMAC + " is not available in this JVM: " + e, e);
    }
  }
}
