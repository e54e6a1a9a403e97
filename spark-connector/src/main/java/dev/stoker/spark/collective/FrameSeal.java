package dev.stoker.spark.collective;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * One direction of a connection after the meeting: seals the frames its side sends, or opens the
 * frames it receives. A frame is its body's length (4 bytes, little-endian), the body and a tag.
 * The tag covers the frame's sequence number (counted by both sides, never sent), the length and
 * the body, so that a frame altered, forged, replayed, dropped or moved fails to open. With
 * {@link #mac} the body travels in clear under an HMAC-SHA256 tag; with {@link #gcm} it is
 * encrypted with AES-256-GCM.
 *
 * <p>Keys and nonces: each key seals exactly one direction of one connection. {@link
 * MeetingCrypto#seals} derives it from the meeting's secret and that connection's handshake
 * (both sides' fresh nonces, the rank, the attempt, whether frames are encrypted) under a label
 * of the direction, so no two directions, connections, meetings or kinds of seal share a key.
 * AES-GCM's 96-bit nonce is 4 zero bytes and the sequence number (8 bytes), which starts at 0 and
 * only counts up, one per frame: a key never meets the same nonce twice (2^64 frames are out of
 * reach).
 *
 * <p>Why HMAC and not GMAC for frames in clear: with the JDK 17 this runs on, AES-GCM over
 * additional data only (GMAC) measured slower than HMAC-SHA256 (SHA-NI) in the all-reduce: the
 * JDK buffers the additional data (copies of every frame) and hashes it in plain Java until the
 * JIT compiles the one call a frame makes, thousands of frames in. Encrypting with AES-GCM runs
 * on the CPU's AES and carry-less multiply instructions from the start and is the cheaper of the
 * two seals. One thread at a time.
 */
abstract class FrameSeal {
  static final int HEADER_BYTES = 4;
  /** The largest body a frame may have: a reduction's head and one chunk of values. */
  static final int MAX_BODY = StarReduce.CHUNK_BYTES + 64;

  protected long sequence;

  static FrameSeal mac(byte[] key) {
    return new MacSeal(key);
  }

  static FrameSeal gcm(byte[] key) {
    return new GcmSeal(key);
  }

  /** The bytes of a frame's tag. */
  abstract int tagBytes();

  /**
   * Seals the next frame: {@code header} holds the body's length, {@code body} the bytes (their
   * remaining, left as they are). Returns the buffers to send, in order.
   */
  abstract ByteBuffer[] seal(ByteBuffer header, ByteBuffer[] body);

  /**
   * Opens the next frame: {@code header} holds its length, {@code frame} (from 0) its body and
   * tag. Returns the plain body, or null if the frame is not authentic.
   */
  abstract ByteBuffer open(ByteBuffer header, ByteBuffer frame, int length);

  /** Whether frames are encrypted. */
  abstract boolean encrypted();

  private static final class MacSeal extends FrameSeal {
    private final Mac mac;
    private final ByteBuffer counter = ByteBuffer.allocate(Long.BYTES)
        .order(ByteOrder.LITTLE_ENDIAN);
    private final byte[] tag = new byte[MeetingCrypto.PROOF_BYTES];
    private final byte[] received = new byte[MeetingCrypto.PROOF_BYTES];

    MacSeal(byte[] key) {
      mac = MeetingCrypto.newMac(key);
    }

    @Override
    int tagBytes() {
      return tag.length;
    }

    @Override
    boolean encrypted() {
      return false;
    }

    private void begin(ByteBuffer header) {
      counter.clear();
      mac.update(counter.putLong(sequence++).flip());
      mac.update(header.duplicate());
    }

    @Override
    ByteBuffer[] seal(ByteBuffer header, ByteBuffer[] body) {
      begin(header);
      for (ByteBuffer part : body) {
        mac.update(part.duplicate());
      }
      finish(tag);
      ByteBuffer[] frame = new ByteBuffer[body.length + 2];
      frame[0] = header;
      System.arraycopy(body, 0, frame, 1, body.length);
      frame[frame.length - 1] = ByteBuffer.wrap(tag);
      return frame;
    }

    @Override
    ByteBuffer open(ByteBuffer header, ByteBuffer frame, int length) {
      begin(header);
      ByteBuffer body = frame.duplicate().position(0).limit(length);
      mac.update(body.duplicate());
      finish(tag);
      frame.get(length, received);
      return MeetingCrypto.same(tag, received) ? body : null;
    }

    private void finish(byte[] into) {
      try {
        mac.doFinal(into, 0);
      } catch (javax.crypto.ShortBufferException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static final class GcmSeal extends FrameSeal {
    private static final int TAG_BYTES = 16;
    private static final int NONCE_BYTES = 12;
    private final SecretKeySpec key;
    private final Cipher cipher;
    private final byte[] nonce = new byte[NONCE_BYTES];
    private ByteBuffer out = ByteBuffer.allocateDirect(0);

    GcmSeal(byte[] key) {
      this.key = new SecretKeySpec(key, "AES");
      try {
        cipher = Cipher.getInstance("AES/GCM/NoPadding");
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES/GCM is not available in this JVM: " + e, e);
      }
    }

    @Override
    int tagBytes() {
      return TAG_BYTES;
    }

    @Override
    boolean encrypted() {
      return true;
    }

    private void begin(int mode, ByteBuffer header) throws GeneralSecurityException {
      ByteBuffer.wrap(nonce).order(ByteOrder.LITTLE_ENDIAN).putInt(0).putLong(sequence++);
      cipher.init(mode, key, new GCMParameterSpec(TAG_BYTES * 8, nonce));
      cipher.updateAAD(header.duplicate());
    }

    private ByteBuffer out(int bytes) {
      if (out.capacity() < bytes) {
        out = ByteBuffer.allocateDirect(Math.max(bytes, Math.min(2 * out.capacity(),
            MAX_BODY + TAG_BYTES)));
      }
      return out.clear();
    }

    @Override
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

    @Override
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
}
