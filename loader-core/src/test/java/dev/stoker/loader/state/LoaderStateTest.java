package dev.stoker.loader.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Test;

class LoaderStateTest {
  private static final InputFingerprint FILES =
      new InputFingerprint(
          List.of(
              new InputFingerprint.Entry(
                  "file:/data/train/part-0.parquet", 1000, 1_700_000_000_000L),
              new InputFingerprint.Entry(
                  "file:/data/train/part-1.parquet", 2000, 1_700_000_000_001L)));
  private static final LoaderState STATE =
      new LoaderState(
          -7,
          true,
          3,
          3,
          64,
          true,
          8192,
          List.of(new Segment(2, 640), new Segment(4, 40 * 64)),
          FILES);

  @Test
  void shouldPrintAShortStringThatParsesBackToTheSameState() {
    String text = STATE.toString();

    assertThat(text).startsWith("stoker1:").hasSizeLessThan(140).matches("stoker1:[A-Za-z0-9_-]+");
    assertThat(LoaderState.parse(text)).isEqualTo(STATE);
    assertThat(LoaderState.parse(" " + text + "\n")).isEqualTo(STATE);
    LoaderState small =
        LoaderState.startOf(1, false, 0, 1, 8, false, 0, InputFingerprint.ofRows(10));
    assertThat(LoaderState.parse(small.toString())).isEqualTo(small);
    assertThat(small.toString()).hasSizeLessThan(80);
  }

  @Test
  void shouldKeepAGlobalOrdersStreamsAndGiveEachWorldSizeItsShareOfTheGlobalBatch() {
    LoaderState global = STATE.inStreams(24);
    assertThat(global.globalBatchRows()).isEqualTo(256);
    assertThat(LoaderState.parse(global.toString())).isEqualTo(global);
    assertThat(global.toString()).isNotEqualTo(STATE.toString());
    assertThat(LoaderState.parse(STATE.toString()).orderStreams()).isZero();

    LoaderState onEight = global.plusBatches(2).resumedOn(8);
    assertThat(onEight.batchSize()).isEqualTo(32);
    assertThat(onEight.globalBatchRows()).isEqualTo(256);
    assertThat(onEight.plusBatches(3).consumedRows())
        .isEqualTo(global.plusBatches(2).consumedRows() + 3 * 256);
    assertThat(STATE.resumedOn(8).batchSize())
        .as("an order of ranks keeps its batch")
        .isEqualTo(64);
    assertThatThrownBy(() -> global.resumedOn(5))
        .hasMessageContaining("worldSize: 5 to resume a global order of 256-row batches in 24")
        .hasMessageContaining("divides 8");
  }

  @Test
  void shouldCountTheRowsConsumedOnEveryRank() {
    assertThat(STATE.consumedRows()).isEqualTo(1280 + 40 * 64 * 4);
    assertThat(STATE.plusBatches(2).consumedRows()).isEqualTo(1280 + 42 * 64 * 4);
    assertThat(STATE.describe())
        .isEqualTo(
            "epoch 3, 11520 row(s) consumed (1280 before, then 40 "
                + "batch(es) x 64 x 4 rank(s))");
    assertThat(STATE.resumedOn(3).segments())
        .containsExactly(new Segment(2, 640), new Segment(4, 2560), new Segment(3, 0));
    assertThat(STATE.resumedOn(3).resumedOn(5).segments())
        .containsExactly(new Segment(2, 640), new Segment(4, 2560), new Segment(5, 0));
  }

  @Test
  void shouldRefuseEveryStringWithOneCharacterChanged() {
    String text = STATE.toString();
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    int refused = 0;
    for (int i = "stoker1:".length(); i < text.length(); i++) {
      for (int k = 0; k < alphabet.length(); k += 7) {
        char c = alphabet.charAt(k);
        if (c == text.charAt(i)) {
          continue;
        }
        String changed = text.substring(0, i) + c + text.substring(i + 1);
        LoaderState parsed;
        try {
          parsed = LoaderState.parse(changed);
        } catch (BadStateException e) {
          assertThat(e)
              .hasMessageStartingWith("state is corrupted: ")
              .hasMessageEndingWith(
                  "(expected: the string exactly as LoaderState.toString() " + "printed it)");
          refused++;
          continue;
        }
        // The last base64 character may carry unused bits: only then may it parse, unchanged.
        assertThat(parsed).as("'%s' parsed", changed).isEqualTo(STATE);
      }
    }
    assertThat(refused).isGreaterThan(text.length());
  }

  @Test
  void shouldNameWhatIsWrongWithAStringThatIsNoState() {
    String text = STATE.toString();
    assertThatThrownBy(() -> LoaderState.parse("stoker2:" + text.substring(8)))
        .isInstanceOf(BadStateException.class)
        .hasMessageStartingWith("state 'stoker2:")
        .hasMessageEndingWith(
            "is of format version 2 (expected: 'stoker1:...', the format this "
                + "Stoker reads; resume with the Stoker version that wrote it)");
    assertThatThrownBy(() -> LoaderState.parse("epoch=3"))
        .isInstanceOf(BadStateException.class)
        .hasMessage(
            "state 'epoch=3' is not a Stoker loader state (expected: a string starting "
                + "with 'stoker1:', as LoaderState.toString() prints it)");
    assertThatThrownBy(() -> LoaderState.parse(text.substring(0, text.length() - 6)))
        .isInstanceOf(BadStateException.class)
        .hasMessageStartingWith("state is corrupted: ");
    assertThatThrownBy(() -> LoaderState.parse("stoker1:"))
        .isInstanceOf(BadStateException.class)
        .hasMessageStartingWith("state is corrupted: ");
    assertThatThrownBy(() -> LoaderState.parse("stoker1:a+b/"))
        .isInstanceOf(BadStateException.class)
        .hasMessageStartingWith("state is corrupted: it does not decode (");
    assertThatThrownBy(() -> LoaderState.parse(null))
        .isInstanceOf(BadStateException.class)
        .hasMessageStartingWith("state: null (expected: ");
  }

  @Test
  void shouldRefuseAStateOfAnotherFormatVersionInsideAValidString() {
    // A well-formed string whose bytes say version 9: what a later Stoker's state would be.
    String text = StateCodecAccess.withVersion(STATE, 9);
    assertThatThrownBy(() -> LoaderState.parse(text))
        .isInstanceOf(BadStateException.class)
        .hasMessage("state format version 9 (expected: 1, the one this Stoker reads)");
  }

  @Test
  void shouldNameEachFileAddedRemovedOrRewritten() {
    InputFingerprint now =
        new InputFingerprint(
            List.of(
                new InputFingerprint.Entry(
                    "file:/data/train/part-1.parquet", 2000, 1_700_000_000_999L),
                new InputFingerprint.Entry("file:/data/train/part-2.parquet", 10, 1)));

    assertThatThrownBy(() -> FILES.check(now))
        .isInstanceOf(InputChangedException.class)
        .hasMessage(
            "the input changed since the state was taken: "
                + "'file:/data/train/part-0.parquet' removed; "
                + "'file:/data/train/part-1.parquet' rewritten (modified 1700000000001 -> "
                + "1700000000999); 'file:/data/train/part-2.parquet' added (expected: the same input, "
                + "or its order is not the one the state was taken in; to resume anyway, rows of the "
                + "epoch possibly twice or never, set acceptChangedInput=true)");
    assertThat(InputFingerprint.ofRows(10).changesTo(InputFingerprint.ofRows(12)))
        .containsExactly("'rows' rewritten (size 10 -> 12)");
    FILES.check(new InputFingerprint(new ArrayList<>(FILES.entries())));
  }

  @Test
  void shouldListAtMostFiveChanges() {
    List<InputFingerprint.Entry> many = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      many.add(new InputFingerprint.Entry("f" + i, i, 0));
    }
    assertThatThrownBy(() -> new InputFingerprint(many).check(InputFingerprint.ofRows(1)))
        .hasMessageContaining("'f4' removed; and 5 more change(s) (expected: ");
  }

  @Test
  void shouldRefuseBadFields() {
    assertThatThrownBy(
            () -> new LoaderState(0, false, -1, 0, 1, false, 0, List.of(new Segment(1, 0)), FILES))
        .hasMessage("epoch: -1 (expected: >= 0)");
    assertThatThrownBy(() -> new Segment(0, 1)).hasMessage("worldSize: 0 (expected: > 0)");
    assertThatThrownBy(() -> new LoaderState(0, false, 0, 0, 1, false, 0, List.of(), FILES))
        .hasMessage("segments: none (expected: at least the current one)");
    assertThatThrownBy(
            () ->
                new InputFingerprint(
                    List.of(
                        new InputFingerprint.Entry("a", 1, 1),
                        new InputFingerprint.Entry("a", 1, 1))))
        .hasMessage("input fingerprint: 'a' twice (expected: each file once)");
  }

  /** Builds a string as the codec does, with another version byte. */
  static final class StateCodecAccess {
    static String withVersion(LoaderState state, int version) {
      String text = StateCodec.encode(state);
      byte[] raw = Inflate.raw(Base64.getUrlDecoder().decode(text.substring(8)));
      raw[0] = (byte) version;
      CRC32 crc = new CRC32();
      crc.update(raw, 0, raw.length - 4);
      ByteBuffer.wrap(raw).putInt(raw.length - 4, (int) crc.getValue());
      return LoaderState.PREFIX
          + Base64.getUrlEncoder().withoutPadding().encodeToString(Inflate.deflate(raw));
    }
  }

  static final class Inflate {
    static byte[] raw(byte[] compressed) {
      Inflater inflater = new Inflater(true);
      try {
        inflater.setInput(compressed);
        byte[] out = new byte[1 << 16];
        int n = inflater.inflate(out);
        return Arrays.copyOf(out, n);
      } catch (DataFormatException e) {
        throw new AssertionError(e);
      } finally {
        inflater.end();
      }
    }

    static byte[] deflate(byte[] raw) {
      Deflater deflater = new Deflater(9, true);
      try {
        deflater.setInput(raw);
        deflater.finish();
        byte[] out = new byte[1 << 16];
        int n = deflater.deflate(out);
        return Arrays.copyOf(out, n);
      } finally {
        deflater.end();
      }
    }
  }
}
