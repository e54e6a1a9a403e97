package dev.stoker.spark.collective;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ring's links attacked as the star's are in {@link CollectiveAttackTest}: a stranger at a
 * rank's ring port, and a relay on the ring link from rank 0 to rank 1 that reads, alters or stalls
 * its bytes. Ranks are threads on the loopback.
 */
@Timeout(60)
class RingAttackTest {
  private static final Duration SHORT = Duration.ofSeconds(2);

  /** The stream offset of rank 0's first ring frame: after its hello and its proof. */
  private static final int FIRST_FRAME = StarConnector.HELLO_BYTES + MeetingCrypto.PROOF_BYTES;

  private final AtomicReference<Socket> stranger = new AtomicReference<>();
  private final AtomicReference<Wire.Relay> relay = new AtomicReference<>();
  private final CountDownLatch over = new CountDownLatch(1);

  @BeforeAll
  static void warmUp() throws Exception {
    ThreadRanks.run(2, Duration.ofSeconds(30), c -> c.allReduceSum(new long[1]));
  }

  @AfterEach
  void closeAttackers() {
    over.countDown();
    Wire.closeQuietly(stranger.get());
    Wire.closeQuietly(relay.get());
  }

  /** "host:port", as a rank says where it listens for the ring. */
  private static InetSocketAddress address(String message) {
    int portAt = message.lastIndexOf(':');
    return new InetSocketAddress(
        message.substring(0, portAt), Integer.parseInt(message.substring(portAt + 1)));
  }

  /** A meeting of two in which rank 0 reaches rank 1's ring port only through a relay. */
  private ThreadRanks.Gather ringThroughRelay(Wire.Relay.Edit edit) {
    ThreadRanks.Gather[] gather = new ThreadRanks.Gather[1];
    gather[0] =
        new ThreadRanks.Gather(
            2,
            () -> {
              try {
                relay.set(new Wire.Relay(address(gather[0].message(1)), false, edit));
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            },
            (rank, all) -> {
              if (rank == 0) {
                InetSocketAddress to = relay.get().address();
                all[1] = to.getHostString() + ":" + to.getPort();
              }
              return all;
            });
    return gather[0];
  }

  @Test
  void shouldRefuseAFrameAlteredOnTheRingNamingThePeer() throws Exception {
    long flip = FIRST_FRAME + 200;
    ThreadRanks.Gather gather =
        ringThroughRelay(
            (offset, bytes, count) -> {
              if (flip >= offset && flip < offset + count) {
                bytes[(int) (flip - offset)] ^= 0x40;
              }
            });
    List<Object> results =
        ThreadRanks.run(
            gather,
            2,
            SHORT,
            collective ->
                collective.algorithm(AllReduceAlgorithm.RING).allReduceSum(new float[1000]));
    assertThat((Throwable) results.get(1))
        .isInstanceOf(CollectiveException.class)
        .hasMessage(
            "rank 1: allReduceSum(float[]) call #1: rank 0 (/127.0.0.1:"
                + relay.get().upstreamPort()
                + ") sent a frame that fails authentication: forged or "
                + "altered on the way (expected: frames sealed with the key of this meeting); the "
                + "connection is closed");
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith(
            "rank 0: allReduceSum(float[]) call #1: the connection to rank " + "1 was lost");
  }

  /** 64 distinct floats of {@code rank}: 1000 (rank + 1) + i + 0.5. */
  private static float[] values(int rank) {
    float[] values = new float[64];
    for (int i = 0; i < values.length; i++) {
      values[i] = 1000 * (rank + 1) + i + 0.5f;
    }
    return values;
  }

  @Test
  void shouldNeverSendTheRingsValuesInClear() throws Exception {
    ThreadRanks.Gather gather = ringThroughRelay(null);
    List<Object> results =
        ThreadRanks.run(
            gather,
            2,
            SHORT,
            collective ->
                Arrays.toString(
                    collective
                        .algorithm(AllReduceAlgorithm.RING)
                        .allReduceSum(values(collective.rank()))));
    float[] sum = values(0);
    for (int i = 0; i < sum.length; i++) {
      sum[i] += values(1)[i];
    }
    assertThat(results).containsOnly(Arrays.toString(sum));
    byte[] wire = relay.get().sent();
    assertThat(wire.length)
        .as("bytes through the relay, both ways")
        .isGreaterThanOrEqualTo(FIRST_FRAME + 64 * Float.BYTES);
    for (float[] plain : new float[][] {values(0), sum}) { // rank 0's values, the result
      ByteBuffer bytes =
          ByteBuffer.allocate(plain.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
      bytes.asFloatBuffer().put(plain);
      for (int i = 0; i + 8 <= bytes.capacity(); i += Float.BYTES) {
        byte[] pair = Arrays.copyOfRange(bytes.array(), i, i + 8);
        assertThat(contains(wire, pair))
            .as("floats %d, %d in clear on the ring", i / 4, i / 4 + 1)
            .isFalse();
      }
    }
  }

  private static boolean contains(byte[] bytes, byte[] run) {
    outer:
    for (int i = 0; i + run.length <= bytes.length; i++) {
      for (int j = 0; j < run.length; j++) {
        if (bytes[i + j] != run[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  @Test
  void shouldDropAStrangerAtARanksRingPortAndStillReduce() throws Exception {
    byte[] garbage = new byte[64];
    new Random(7).nextBytes(garbage);
    ThreadRanks.Gather[] gather = new ThreadRanks.Gather[1];
    gather[0] =
        new ThreadRanks.Gather(
            2,
            () -> {
              Socket socket = Wire.connect(address(gather[0].message(1)));
              stranger.set(socket);
              try {
                socket.getOutputStream().write(garbage);
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            },
            (rank, all) -> all);
    List<Object> results =
        ThreadRanks.run(
            gather[0],
            2,
            SHORT,
            collective ->
                Arrays.toString(
                        collective
                            .algorithm(AllReduceAlgorithm.RING)
                            .allReduceMean(
                                new float[] {collective.rank() + 1, 2 * (collective.rank() + 1)}))
                    + " "
                    + collective.refusals());
    assertThat(results)
        .containsExactly(
            "[1.5, 3.0] []",
            "[1.5, 3.0] [rank 1 dropped a "
                + "connection from "
                + stranger.get().getLocalSocketAddress()
                + ": it sent no Stoker "
                + "hello]");
  }

  @Test
  void shouldFailEveryRankWithinTheTimeoutNamingThePeerWhenARingLinkStalls() throws Exception {
    // the relay stops passing rank 0's bytes on, as a link taken down would: no reset, no bytes
    ThreadRanks.Gather gather =
        ringThroughRelay(
            (offset, bytes, count) -> {
              if (offset + count > FIRST_FRAME + 1000) {
                try {
                  over.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    long start = System.nanoTime();
    List<Object> results =
        ThreadRanks.run(
            gather,
            2,
            Duration.ofMillis(1500),
            collective ->
                collective.algorithm(AllReduceAlgorithm.RING).allReduceSum(new float[1_000_000]));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    assertThat((Throwable) results.get(1))
        .isInstanceOf(CollectiveException.class)
        .hasMessage(
            "rank 1: allReduceSum(float[]) call #1 (waiting for rank 0): nothing for "
                + "1500 ms (expected: every rank to make the same collective calls in the same "
                + "order; if a rank is just slow, raise timeout)");
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith("rank 0: allReduceSum(float[]) call #1")
        .hasMessageContaining("rank 1");
  }

  @Test
  void shouldStopWaitingOnTheRingWhenTheTaskIsCancelledAndFailThePeer() throws Exception {
    ThreadRanks.Gather gather =
        ringThroughRelay(
            (offset, bytes, count) -> {
              if (offset + count > FIRST_FRAME + 1000) { // rank 1 waits on rank 0's stalled bytes
                try {
                  over.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    long start = System.nanoTime();
    java.util.concurrent.atomic.AtomicLong calling = new java.util.concurrent.atomic.AtomicLong();
    List<Object> results =
        ThreadRanks.run(
            gather,
            2,
            ListenOn.any("127.0.0.1"),
            rank ->
                new Waits(
                    Duration.ofSeconds(30),
                    "collectiveTimeout",
                    () -> {
                      long since = calling.get(); // rank 1 is killed half a second into its call
                      if (rank == 1 && since != 0 && System.nanoTime() - since > 500_000_000L) {
                        throw new IllegalStateException("task killed");
                      }
                    }),
            collective -> {
              if (collective.rank() == 1) {
                calling.set(System.nanoTime());
              }
              return collective
                  .algorithm(AllReduceAlgorithm.RING)
                  .allReduceSum(new float[1_000_000]);
            });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    assertThat((Throwable) results.get(1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("task killed");
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith(
            "rank 0: allReduceSum(float[]) call #1: the connection to rank " + "1 was lost");
  }
}
