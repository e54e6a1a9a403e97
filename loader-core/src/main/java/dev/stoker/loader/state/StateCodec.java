package dev.stoker.loader.state;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The string form of a {@link LoaderState}: {@link LoaderState#PREFIX}, then URL-safe base64
 * (unpadded) of the deflated bytes of: the format version (one byte), the fields in their record
 * order, the fingerprint's entries, the streams of a global order (only where there are some, so a
 * state of an order of ranks reads as it always did), and a CRC32 of all of them.
 */
final class StateCodec {
  /** Most bytes a state inflates to: a fingerprint of some hundred thousand files. */
  private static final int MAX_BYTES = 64 << 20;

  private static final int FLAG_SHUFFLE = 1;
  private static final int FLAG_DROP_LAST = 2;

  private StateCodec() {}

  static String encode(LoaderState state) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(LoaderState.FORMAT_VERSION);
      out.writeLong(state.seed());
      out.writeByte((state.shuffle() ? FLAG_SHUFFLE : 0) | (state.dropLast() ? FLAG_DROP_LAST : 0));
      out.writeInt(state.epoch());
      out.writeInt(state.orderEpoch());
      out.writeInt(state.batchSize());
      out.writeInt(state.windowRows());
      out.writeInt(state.segments().size());
      for (Segment segment : state.segments()) {
        out.writeInt(segment.worldSize());
        out.writeLong(segment.rows());
      }
      List<InputFingerprint.Entry> entries = state.input().entries();
      out.writeInt(entries.size());
      for (InputFingerprint.Entry entry : entries) {
        out.writeUTF(entry.name());
        out.writeLong(entry.size());
        out.writeLong(entry.modified());
      }
      if (state.orderStreams() > 0) {
        out.writeInt(state.orderStreams());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    byte[] payload = bytes.toByteArray();
    CRC32 crc = new CRC32();
    crc.update(payload);
    byte[] raw =
        ByteBuffer.allocate(payload.length + 4).put(payload).putInt((int) crc.getValue()).array();
    return LoaderState.PREFIX
        + Base64.getUrlEncoder().withoutPadding().encodeToString(deflate(raw));
  }

  static LoaderState decode(String text) {
    if (text == null) {
      throw new BadStateException(
          "state: null (expected: a string starting with '"
              + LoaderState.PREFIX
              + "', as LoaderState.toString() prints it)");
    }
    String trimmed = text.strip();
    if (!trimmed.startsWith(LoaderState.PREFIX)) {
      throw new BadStateException(otherFormat(trimmed));
    }
    byte[] raw;
    try {
      raw = inflate(Base64.getUrlDecoder().decode(trimmed.substring(LoaderState.PREFIX.length())));
    } catch (IllegalArgumentException | DataFormatException e) {
      throw corrupted("it does not decode (" + e.getMessage() + ")", e);
    }
    if (raw.length < 5) {
      throw corrupted("it holds " + raw.length + " byte(s)", null);
    }
    CRC32 crc = new CRC32();
    crc.update(raw, 0, raw.length - 4);
    int stored = ByteBuffer.wrap(raw, raw.length - 4, 4).getInt();
    if (stored != (int) crc.getValue()) {
      throw corrupted(
          String.format("its CRC32 is %08x, its bytes' %08x", stored, (int) crc.getValue()), null);
    }
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(raw, 0, raw.length - 4))) {
      int version = in.readUnsignedByte();
      if (version != LoaderState.FORMAT_VERSION) {
        throw new BadStateException(
            "state format version "
                + version
                + " (expected: "
                + LoaderState.FORMAT_VERSION
                + ", the one this Stoker reads)");
      }
      long seed = in.readLong();
      int flags = in.readUnsignedByte();
      int epoch = in.readInt();
      int orderEpoch = in.readInt();
      int batchSize = in.readInt();
      int windowRows = in.readInt();
      int segmentCount = in.readInt();
      if (segmentCount < 0 || segmentCount > raw.length / 12) {
        throw corrupted(
            "it declares " + segmentCount + " segments in " + raw.length + " bytes", null);
      }
      List<Segment> segments = new ArrayList<>(segmentCount);
      for (int i = 0; i < segmentCount; i++) {
        segments.add(new Segment(in.readInt(), in.readLong()));
      }
      int count = in.readInt();
      if (count < 0 || count > raw.length / 18) {
        throw corrupted(
            "it declares " + count + " input entries in " + raw.length + " bytes", null);
      }
      List<InputFingerprint.Entry> entries = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        entries.add(new InputFingerprint.Entry(in.readUTF(), in.readLong(), in.readLong()));
      }
      int orderStreams = in.available() > 0 ? in.readInt() : 0;
      if (in.available() > 0) {
        throw corrupted(in.available() + " byte(s) follow its last field", null);
      }
      return new LoaderState(
          seed,
          (flags & FLAG_SHUFFLE) != 0,
          epoch,
          orderEpoch,
          batchSize,
          (flags & FLAG_DROP_LAST) != 0,
          windowRows,
          segments,
          new InputFingerprint(entries),
          orderStreams);
    } catch (EOFException e) {
      throw corrupted("it ends before its last field", e);
    } catch (IOException e) {
      throw corrupted(e.toString(), e);
    } catch (BadStateException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw corrupted(e.getMessage(), e);
    }
  }

  private static String otherFormat(String text) {
    String shown = text.length() > 24 ? text.substring(0, 24) + "..." : text;
    if (text.matches("stoker\\d+:.*")) {
      return "state '"
          + shown
          + "' is of format version "
          + text.substring(6, text.indexOf(':'))
          + " (expected: '"
          + LoaderState.PREFIX
          + "...', the format this Stoker reads; resume "
          + "with the Stoker version that wrote it)";
    }
    return "state '"
        + shown
        + "' is not a Stoker loader state (expected: a string starting with '"
        + LoaderState.PREFIX
        + "', as LoaderState.toString() prints it)";
  }

  private static BadStateException corrupted(String what, Throwable cause) {
    return new BadStateException(
        "state is corrupted: "
            + what
            + " (expected: the string exactly as "
            + "LoaderState.toString() printed it)",
        cause);
  }

  private static byte[] deflate(byte[] raw) {
    Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
    try {
      deflater.setInput(raw);
      deflater.finish();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[4096];
      while (!deflater.finished()) {
        out.write(buffer, 0, deflater.deflate(buffer));
      }
      return out.toByteArray();
    } finally {
      deflater.end();
    }
  }

  private static byte[] inflate(byte[] compressed) throws DataFormatException {
    Inflater inflater = new Inflater(true);
    try {
      inflater.setInput(compressed);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[4096];
      while (!inflater.finished()) {
        int n = inflater.inflate(buffer);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          throw new DataFormatException("the deflated bytes end early");
        }
        out.write(buffer, 0, n);
        if (out.size() > MAX_BYTES) {
          throw new DataFormatException("more than " + MAX_BYTES + " bytes");
        }
      }
      if (inflater.getRemaining() > 0) {
        throw new DataFormatException(inflater.getRemaining() + " byte(s) after the end");
      }
      return out.toByteArray();
    } finally {
      inflater.end();
    }
  }
}
