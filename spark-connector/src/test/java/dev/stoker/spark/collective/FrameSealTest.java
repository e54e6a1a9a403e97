package dev.stoker.spark.collective;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The frame seal's nonces: one per frame, never the same twice under a key, and a connection whose
 * count of frames would wrap around fails instead of reusing one.
 */
@Timeout(30)
class FrameSealTest {
  private static final byte[] KEY = new byte[32];
  private Link sender;
  private Link receiver;

  @AfterEach
  void close() {
    StarConnector.closeQuietly(sender);
    StarConnector.closeQuietly(receiver);
  }

  private static ByteBuffer header(int length) {
    return ByteBuffer.allocate(FrameSeal.HEADER_BYTES)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(0, length);
  }

  private static byte[] sealed(FrameSeal seal, byte[] body) {
    ByteBuffer frame = seal.seal(header(body.length), new ByteBuffer[] {ByteBuffer.wrap(body)})[1];
    byte[] bytes = new byte[frame.remaining()];
    frame.get(bytes);
    return bytes;
  }

  @Test
  void shouldSealTheSameBodyDifferentlyEveryFrameAndOpenEachInTurn() {
    FrameSeal sending = new FrameSeal(KEY);
    byte[] body = {1, 2, 3, 4, 5, 6, 7, 8};
    byte[] first = sealed(sending, body);
    byte[] second = sealed(sending, body);
    assertThat(first).hasSize(body.length + FrameSeal.TAG_BYTES).isNotEqualTo(second);
    assertThat(Arrays.copyOf(first, body.length)).as("in clear").isNotEqualTo(body);

    FrameSeal receiving = new FrameSeal(KEY);
    assertThat(receiving.open(header(8), ByteBuffer.wrap(second), 8)).as("out of turn").isNull();
    receiving = new FrameSeal(KEY);
    ByteBuffer plain = receiving.open(header(8), ByteBuffer.wrap(first), 8);
    byte[] opened = new byte[plain.remaining()];
    plain.get(opened);
    assertThat(opened).isEqualTo(body);
  }

  @Test
  void shouldRefuseToSealOrOpenPastTheLastSequenceNumber() {
    FrameSeal sending = new FrameSeal(KEY, Long.MAX_VALUE);
    byte[] last = sealed(sending, new byte[8]);
    assertThat(sending.exhausted()).isTrue();
    assertThatThrownBy(() -> sealed(sending, new byte[8]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("this key has sealed 2^63 frames, the most it may without reusing a nonce");

    FrameSeal receiving = new FrameSeal(KEY, Long.MAX_VALUE);
    assertThat(receiving.open(header(8), ByteBuffer.wrap(last), 8)).isNotNull();
    assertThatThrownBy(() -> receiving.open(header(8), ByteBuffer.wrap(last), 8))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("this key has sealed 2^63 frames, the most it may without reusing a nonce");
  }

  @Test
  void shouldFailTheConnectionRatherThanWrapItsCount() throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      SocketChannel out = SocketChannel.open(server.getLocalAddress());
      sender = new Link(0, out, Waits.of(Duration.ofSeconds(5)));
      receiver = new Link(1, server.accept(), Waits.of(Duration.ofSeconds(5)));
    }
    sender.seal(new FrameSeal(KEY, Long.MAX_VALUE), new FrameSeal(new byte[32]));
    receiver.seal(new FrameSeal(new byte[32]), new FrameSeal(KEY, Long.MAX_VALUE));

    sender.write("the last frame", ByteBuffer.wrap(new byte[] {42}));
    ByteBuffer got = ByteBuffer.allocate(1);
    receiver.read(got, "the last frame");
    assertThat(got.get(0)).isEqualTo((byte) 42);

    assertThatThrownBy(() -> sender.write("one frame too many", ByteBuffer.allocate(1)))
        .isInstanceOf(CollectiveException.class)
        .hasMessage(
            "one frame too many: the connection to "
                + sender.who()
                + " has sent 2^63 "
                + "frames, the most one key may seal without reusing a nonce; the connection is "
                + "closed (expected: a new meeting, e.g. a new stage, before that)");
    assertThatThrownBy(() -> receiver.read(ByteBuffer.allocate(1), "one frame too many"))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith("one frame too many: the connection to rank 1 (/127.0.0.1:")
        .hasMessageEndingWith(
            " has received 2^63 frames, the most one key may seal without "
                + "reusing a nonce; the connection is closed (expected: a new meeting, e.g. a new "
                + "stage, before that)");
  }
}
