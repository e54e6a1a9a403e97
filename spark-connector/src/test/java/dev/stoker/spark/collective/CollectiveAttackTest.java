package dev.stoker.spark.collective;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The collective attacked as a stranger on the network would: one that learned rank 0's port by a
 * scan and connects (silent, slow, garbage, a hello copied off the wire), and one on the path
 * between rank 1 and rank 0 that reads, alters, forges or replays frames. Ranks are threads on the
 * loopback.
 */
@Timeout(60)
class CollectiveAttackTest {
  private static final Duration SHORT = Duration.ofSeconds(2);
  private final AtomicReference<Socket> stranger = new AtomicReference<>();
  private final AtomicReference<Wire.Relay> relay = new AtomicReference<>();

  @BeforeAll
  static void warmUp() throws Exception {
    // the JVM's first HMAC and SecureRandom take a moment; the tests below time meetings
    ThreadRanks.run(2, Duration.ofSeconds(30), c -> c.allReduceSum(new long[1]));
  }

  @AfterEach
  void closeAttackers() {
    Wire.closeQuietly(stranger.get());
    Wire.closeQuietly(relay.get());
  }

  /** Each rank's mean of {rank + 1, 2 * (rank + 1)}, and what rank 0 dropped. */
  private static String meanAndRefusals(Collective collective) {
    int r = collective.rank();
    float[] values = collective.allReduceMean(new float[] {r + 1, 2 * (r + 1)});
    return Arrays.toString(values) + (r == 0 ? " " + collective.refusals() : "");
  }

  /** Each rank's mean; on rank 0 also how many refusals it kept and the first. */
  private static String meanAndFirstRefusal(Collective collective) {
    String mean = meanAndRefusals(collective);
    return collective.rank() == 0
        ? mean.substring(0, mean.indexOf(']') + 1)
            + " "
            + collective.refusals().size()
            + " "
            + collective.refusals().get(0)
        : mean;
  }

  /** A meeting in which a stranger connects to rank 0 before any rank does. */
  private ThreadRanks.Gather strangerFirst(byte[] says, long everyMillis) {
    ThreadRanks.Gather[] gather = new ThreadRanks.Gather[1];
    gather[0] =
        new ThreadRanks.Gather(
            2,
            () -> {
              Socket socket = Wire.connect(Wire.listening(gather[0].first()));
              stranger.set(socket);
              if (everyMillis > 0) {
                Wire.dribble(socket, says, everyMillis);
              } else if (says.length > 0) { // all at once, before any rank connects
                try {
                  socket.getOutputStream().write(says);
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              }
            },
            (rank, all) -> all);
    return gather[0];
  }

  private String dropped(String why) {
    return "rank 0 dropped a connection from "
        + stranger.get().getLocalSocketAddress()
        + ": it "
        + why;
  }

  @Test
  void shouldMeetAndReduceWhileAStrangerConnectsAndSaysNothing() throws Exception {
    ThreadRanks.Gather gather = strangerFirst(new byte[0], 0);
    List<Object> results = ThreadRanks.run(gather, 2, SHORT, CollectiveAttackTest::meanAndRefusals);
    assertThat(results)
        .containsExactly(
            "[1.5, 3.0] ["
                + dropped(
                    "had not completed its " + "handshake before its hello when the meeting ended")
                + "]",
            "[1.5, 3.0]");
    assertThat(Wire.dropped(stranger.get(), 5000)).as("the stranger's connection closed").isTrue();
  }

  @Test
  void shouldNotWaitForASlowTalkerEvenWithNoTimeout() throws Exception {
    byte[] almostAHello = new byte[19];
    ThreadRanks.Gather gather = strangerFirst(almostAHello, 300);
    List<Object> results =
        ThreadRanks.run(gather, 2, Duration.ZERO, CollectiveAttackTest::meanAndRefusals);
    assertThat(results.get(0))
        .asString()
        .startsWith(
            "[1.5, 3.0] ["
                + dropped(
                    "had not "
                        + "completed its handshake before its hello when the meeting ended"));
    assertThat(results.get(1)).isEqualTo("[1.5, 3.0]");
  }

  @Test
  void shouldDropASilentStrangerAfterTheHandshakeLimitWhileTheRanksWaitForEachOther()
      throws Exception {
    ThreadRanks.Gather[] gather = new ThreadRanks.Gather[1];
    gather[0] =
        new ThreadRanks.Gather(
            2,
            () -> stranger.set(Wire.connect(Wire.listening(gather[0].first()))),
            (rank, all) -> {
              if (rank == 1) { // rank 1 comes only once rank 0 has dropped the stranger
                assertThat(Wire.dropped(stranger.get(), 20_000)).isTrue();
              }
              return all;
            });
    List<Object> results =
        ThreadRanks.run(gather[0], 2, Duration.ZERO, CollectiveAttackTest::meanAndRefusals);
    assertThat(results)
        .containsExactly(
            "[1.5, 3.0] ["
                + dropped(
                    "did not complete its " + "handshake within 5 s (0 bytes before its hello)")
                + "]",
            "[1.5, 3.0]");
  }

  @Test
  void shouldDropAStrangerSendingGarbageAtOnce() throws Exception {
    byte[] garbage = new byte[64];
    new Random(7).nextBytes(garbage);
    ThreadRanks.Gather gather = strangerFirst(garbage, 0);
    List<Object> results = ThreadRanks.run(gather, 2, SHORT, CollectiveAttackTest::meanAndRefusals);
    assertThat(results)
        .containsExactly("[1.5, 3.0] [" + dropped("sent no Stoker hello") + "]", "[1.5, 3.0]");
  }

  @Test
  void shouldMeetWhileAFloodOfStrangersHoldsConnectionsOpen() throws Exception {
    List<Socket> flood = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.CountDownLatch flooded = new java.util.concurrent.CountDownLatch(1);
    ThreadRanks.Gather[] gather = new ThreadRanks.Gather[1];
    gather[0] =
        new ThreadRanks.Gather(
            2,
            () ->
                new Thread(
                        () -> {
                          for (int i = 0; i < StarListener.MAX_PENDING + 44; i++) {
                            flood.add(Wire.connect(Wire.listening(gather[0].first())));
                          }
                          flooded.countDown();
                        })
                    .start(),
            (rank, all) -> {
              if (rank == 1) { // rank 1 comes after the flood, while rank 0 holds 256 of them
                try {
                  flooded.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              return all;
            });
    try {
      List<Object> results =
          ThreadRanks.run(
              gather[0], 2, Duration.ofSeconds(20), CollectiveAttackTest::meanAndFirstRefusal);
      assertThat(results)
          .containsExactly(
              "[1.5, 3.0] 100 rank 0 dropped a connection from "
                  + flood.get(0).getLocalSocketAddress()
                  + ": it was the oldest of 256 connections in "
                  + "their handshake when another came",
              "[1.5, 3.0]");
    } finally {
      flood.forEach(Wire::closeQuietly);
    }
  }

  /** A meeting in which rank 1 reaches rank 0 only through a relay on the path. */
  private ThreadRanks.Gather throughRelay(boolean hold, Wire.Relay.Edit edit) {
    ThreadRanks.Gather[] gather = new ThreadRanks.Gather[1];
    gather[0] =
        new ThreadRanks.Gather(
            2,
            () -> {
              try {
                relay.set(new Wire.Relay(Wire.listening(gather[0].first()), hold, edit));
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            },
            (rank, all) -> {
              if (rank == 1) {
                all[0] = Wire.redirect(all[0], relay.get().address());
              }
              return all;
            });
    return gather[0];
  }

  @Test
  void shouldRefuseAStrangerClaimingRank1WithTheHelloItSawOnTheWire() throws Exception {
    ThreadRanks.Gather gather = throughRelay(true, null);
    Thread attack =
        new Thread(
            () -> {
              try {
                while (relay.get() == null) {
                  Thread.sleep(5);
                }
                byte[] hello = relay.get().hello.get(20, TimeUnit.SECONDS);
                Socket socket = Wire.connect(Wire.listening(gather.first()));
                stranger.set(socket);
                OutputStream out = socket.getOutputStream();
                out.write(hello); // rank 1's own hello, copied off the wire
                // then what it wants rank 0 to add: mean of two floats, call 1, [1e30, -1e30]
                out.write(
                    ByteBuffer.allocate(32)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putInt(2)
                        .putInt(1)
                        .putInt(2)
                        .putFloat(1e30f)
                        .putFloat(-1e30f)
                        .array());
                out.flush();
                Wire.dropped(socket, 3000);
              } catch (Exception e) {
                // the assertions below tell
              } finally {
                relay.get().release();
              }
            });
    attack.start();
    List<Object> results =
        ThreadRanks.run(gather, 2, Duration.ofSeconds(10), CollectiveAttackTest::meanAndRefusals);
    attack.join();
    assertThat(results)
        .containsExactly(
            "[1.5, 3.0] ["
                + dropped(
                    "claims rank 1 but does not "
                        + "prove that it holds the meeting's secret (a stranger, or a rank of another meeting)")
                + "]",
            "[1.5, 3.0]");
  }

  /** Rank 0's error when rank 1's frames were tampered with on the relay. */
  private String refusedFrame(String call) {
    return "rank 0: "
        + call
        + ": rank 1 (/127.0.0.1:"
        + relay.get().upstreamPort()
        + ") sent a frame that fails authentication: forged or altered on the way (expected: "
        + "frames sealed with the key of this meeting); the connection is closed";
  }

  /** The stream offset of rank 1's first frame: after its hello and its proof. */
  private static final int FIRST_FRAME = StarConnector.HELLO_BYTES + MeetingCrypto.PROOF_BYTES;

  @Test
  void shouldRefuseAFrameAlteredOnTheWayNamingThePeer() throws Exception {
    long flip = FIRST_FRAME + 200;
    ThreadRanks.Gather gather =
        throughRelay(
            false,
            (offset, bytes, count) -> {
              if (flip >= offset && flip < offset + count) {
                bytes[(int) (flip - offset)] ^= 0x40;
              }
            });
    List<Object> results =
        ThreadRanks.run(gather, 2, SHORT, collective -> collective.allReduceMean(new float[1000]));
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessage(refusedFrame("allReduceMean(float[]) call #1"));
    assertThat((Throwable) results.get(1))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith(
            "rank 1: allReduceMean(float[]) call #1: the connection to " + "rank 0 was lost");
  }

  @Test
  void shouldRefuseAFrameForgedInPlaceOfRank1s() throws Exception {
    // [length 20][mean of floats, call 1, 2 values: 1e30, -1e30] sealed under a guessed key
    ByteBuffer header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 20);
    ByteBuffer body =
        ByteBuffer.allocate(20)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(2)
            .putInt(1)
            .putInt(2)
            .putFloat(1e30f)
            .putFloat(-1e30f)
            .flip();
    byte[] forged = bytes(new FrameSeal(new byte[32]).seal(header, new ByteBuffer[] {body}));
    assertThat(forged).hasSize(4 + 20 + FrameSeal.TAG_BYTES); // the length of rank 1's frame
    ThreadRanks.Gather gather = throughRelay(false, overwrite(FIRST_FRAME, forged));
    List<Object> results = ThreadRanks.run(gather, 2, SHORT, CollectiveAttackTest::meanAndRefusals);
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessage(refusedFrame("allReduceMean(float[]) call #1"));
  }

  @Test
  void shouldRefuseAFrameReplayedFromAnEarlierCall() throws Exception {
    int frame = 4 + 20 + FrameSeal.TAG_BYTES; // two floats
    byte[] first = new byte[frame];
    ThreadRanks.Gather gather =
        throughRelay(
            false,
            (offset, bytes, count) -> {
              for (int i = 0; i < count; i++) {
                long at = offset + i;
                if (at >= FIRST_FRAME && at < FIRST_FRAME + frame) {
                  first[(int) (at - FIRST_FRAME)] = bytes[i];
                } else if (at >= FIRST_FRAME + frame && at < FIRST_FRAME + 2L * frame) {
                  bytes[i] = first[(int) (at - FIRST_FRAME - frame)];
                }
              }
            });
    List<Object> results =
        ThreadRanks.run(
            gather,
            2,
            SHORT,
            collective -> {
              meanAndRefusals(collective);
              return meanAndRefusals(collective);
            });
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessage(refusedFrame("allReduceMean(float[]) call #2"));
  }

  private static byte[] bytes(ByteBuffer[] buffers) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (ByteBuffer buffer : buffers) {
      byte[] part = new byte[buffer.remaining()];
      buffer.duplicate().get(part);
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  private static Wire.Relay.Edit overwrite(long from, byte[] with) {
    return (offset, bytes, count) -> {
      for (int i = 0; i < count; i++) {
        long at = offset + i;
        if (at >= from && at < from + with.length) {
          bytes[i] = with[(int) (at - from)];
        }
      }
    };
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
  void shouldNeverSendValuesInClear() throws Exception {
    ThreadRanks.Gather gather = throughRelay(false, null);
    List<Object> results =
        ThreadRanks.run(
            gather,
            2,
            SHORT,
            collective -> Arrays.toString(collective.allReduceSum(values(collective.rank()))));
    float[] sum = values(0);
    for (int i = 0; i < sum.length; i++) {
      sum[i] += values(1)[i];
    }
    assertThat(results).containsOnly(Arrays.toString(sum));
    byte[] wire = relay.get().sent();
    assertThat(wire.length)
        .as("bytes through the relay, both ways")
        .isGreaterThanOrEqualTo(FIRST_FRAME + 2 * 64 * Float.BYTES);
    for (float[] plain : new float[][] {values(1), sum}) { // rank 1's values, the result
      ByteBuffer bytes =
          ByteBuffer.allocate(plain.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
      bytes.asFloatBuffer().put(plain);
      for (int i = 0; i + 8 <= bytes.capacity(); i += Float.BYTES) { // any two floats in a row
        byte[] pair = Arrays.copyOfRange(bytes.array(), i, i + 8);
        assertThat(contains(wire, pair))
            .as(
                "floats %d, %d of %s in clear on the wire",
                i / 4, i / 4 + 1, Arrays.toString(plain))
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
  void shouldEndTheMeetingAtItsDeadlineNamingTheRanksThatDidNotConnect() throws Exception {
    ThreadRanks.Gather gather =
        new ThreadRanks.Gather(
            3,
            () -> {},
            (rank, all) -> {
              if (rank == 2) {
                sleep(3000); // reaches its first all-reduce late
              }
              return all;
            });
    List<Object> results =
        ThreadRanks.run(
            gather, 3, Duration.ofMillis(1500), collective -> collective.allReduceSum(new long[1]));
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessage(
            "rank 0: the ranks' meeting: rank 2 did not connect within 1500 ms "
                + "(expected: every rank to make the same collective calls in the same order; if a "
                + "rank is just slow, raise timeout)");
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
