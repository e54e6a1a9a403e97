package dev.stoker.spark.collective;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * One direction of a connection after the meeting: seals the frames its side sends, or opens the
 * frames it receives, with AES-256-GCM, so that every frame is encrypted and authenticated. A frame
 * is its body's length (4 bytes, little-endian, authenticated but in clear), the encrypted body and
 * a 16-byte tag. The tag covers the frame's sequence number (counted by both sides, never sent),
 * the length and the body, so that a frame altered, forged, replayed, dropped or moved fails to
 * open.
 *
 * <p>Keys and nonces: each key seals exactly one direction of one connection. {@link
 * MeetingCrypto#seals} derives it from the meeting's secret and that connection's handshake (both
 * sides' fresh nonces, the rank, the attempt) under a label of the direction, so no two directions,
 * connections or meetings share a key. The 96-bit nonce is 4 zero bytes and the sequence number (8
 * bytes), which starts at 0 and only counts up, one per frame, so a key never meets the same nonce
 * twice. The count stops at {@link #MAX_FRAMES}: a seal that reached it refuses every further frame
 * (and {@link Link} fails the connection) rather than wrap around and reuse a nonce. Frames are at
 * most {@link #MAX_BODY} bytes, far below GCM's limit per nonce. One thread at a time.
 */
final class FrameSeal {
  static final int HEADER_BYTES = 4;
  static final int TAG_BYTES = 16;

  /** The largest body a frame may have: a reduction's head and one chunk of values. */
  static final int MAX_BODY = StarReduce.CHUNK_BYTES + 64;

  /** The most frames one key seals: sequence numbers 0 .. 2^63 - 1, each used once. */
  static final String MAX_FRAMES = "2^63";

  private static final int NONCE_BYTES = 12;

  private final SecretKeySpec key;
  private final Cipher cipher;
  private final byte[] nonce = new byte[NONCE_BYTES];
  private final ByteBuffer nonceView = ByteBuffer.wrap(nonce).order(ByteOrder.LITTLE_ENDIAN);
  private ByteBuffer out = ByteBuffer.allocateDirect(0);

  /** The next frame's sequence number; negative once every number has been used. */
  private long sequence;

  FrameSeal(byte[] key) {
    this(key, 0);
  }

  /** A seal whose next frame has {@code sequence}: for tests of the end of the count. */
  FrameSeal(byte[] key, long sequence) {
    this.key = new SecretKeySpec(key, "AES");
    this.sequence = sequence;
    try {
      cipher = Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/GCM is not available in this JVM: " + e, e);
    }
  }

  /** Whether every sequence number has been used: no frame may be sealed or opened any more. */
  boolean exhausted() {
    return sequence < 0;
  }

  private void begin(int mode, ByteBuffer header) throws GeneralSecurityException {
    if (exhausted()) {
      throw new IllegalStateException(
          "this key has sealed "
              + MAX_FRAMES
              + " frames, the most "
              + "it may without reusing a nonce");
    }
    nonceView.clear();
    nonceView.putInt(0).putLong(sequence++);
    cipher.init(mode, key, new GCMParameterSpec(TAG_BYTES * 8, nonce));
    cipher.updateAAD(header.duplicate());
  }

  private ByteBuffer out(int bytes) {
    if (out.capacity() < bytes) {
      out =
          ByteBuffer.allocateDirect(
              Math.max(bytes, Math.min(2 * out.capacity(), MAX_BODY + TAG_BYTES)));
    }
    return out.clear();
  }

  /**
   * Seals the next frame: {@code header} holds the body's length, {@code body} the bytes (their
   * remaining, left as they are). Returns the buffers to send, in order: the header, then the
   * encrypted body and its tag (valid until the next call).
   */
  ByteBuffer[] seal(ByteBuffer header, ByteBuffer[] body) {
    int length = header.getInt(0);
    ByteBuffer sealed = out(length + TAG_BYTES);
    try {
      begin(Cipher.ENCRYPT_MODE, header);
      for (ByteBuffer part : body) {
        cipher.update(part.duplicate(), sealed);
      }
      cipher.doFinal(ByteBuffer.allocate(0), sealed);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/GCM failed to seal a frame: " + e, e);
    }
    return new ByteBuffer[] {header, sealed.flip()};
  }

  /**
   * Opens the next frame: {@code header} holds its length, {@code frame} (from 0) its encrypted
   * body and tag. Returns the plain body (valid until the next call), or null if the frame is not
   * authentic.
   */
  ByteBuffer open(ByteBuffer header, ByteBuffer frame, int length) {
    ByteBuffer plain = out(length + TAG_BYTES);
    try {
      begin(Cipher.DECRYPT_MODE, header);
      cipher.doFinal(frame.duplicate().position(0).limit(length + TAG_BYTES), plain);
    } catch (AEADBadTagException e) {
      return null;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/GCM failed to open a frame: " + e, e);
    }
    return plain.flip();
  }
}
