package dev.stoker.spark.collective;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ring all-reduce with threads as ranks, on the loopback. */
@Timeout(120)
class RingTest {
  private static final Duration LONG = Duration.ofSeconds(30);

  @BeforeAll
  static void warmUp() throws Exception {
    ThreadRanks.run(2, LONG, c -> c.allReduceSum(new long[1]));
  }

  /** Rank {@code rank}'s values: magnitudes far apart, so that another order changes the bits. */
  private static float[] values(int rank, int length, long seed) {
    Random random = new Random(seed * 31 + rank);
    float[] values = new float[length];
    for (int i = 0; i < length; i++) {
      values[i] = (float) (random.nextGaussian() * Math.pow(10, random.nextInt(9) - 4));
    }
    return values;
  }

  /** The ring's order: segment j starts with rank j's values and adds ranks j + 1, j + 2, ... */
  private static float[] ringSum(int ranks, int length, long seed) {
    float[] sum = new float[length];
    for (int j = 0; j < ranks; j++) {
      int from = (int) ((long) length * j / ranks);
      int to = (int) ((long) length * (j + 1) / ranks);
      float[] first = values(j, length, seed);
      System.arraycopy(first, from, sum, from, to - from);
      for (int k = 1; k < ranks; k++) {
        float[] next = values((j + k) % ranks, length, seed);
        for (int i = from; i < to; i++) {
          sum[i] = next[i] + sum[i];
        }
      }
    }
    return sum;
  }

  @Test
  void shouldGiveEveryRankTheRingsBitsForEveryWorldSizeAndLength() throws Exception {
    for (int ranks = 2; ranks <= 5; ranks++) {
      int world = ranks;
      int[] lengths = {0, 1, world - 1, world, world + 1, 7, 1001};
      List<Object> results =
          ThreadRanks.run(
              ranks,
              LONG,
              collective -> {
                collective.algorithm(AllReduceAlgorithm.RING);
                StringBuilder wrong = new StringBuilder();
                for (int length : lengths) {
                  for (int run = 0; run < 2; run++) { // the same bits run after run
                    float[] sum =
                        collective.allReduceSum(values(collective.rank(), length, length));
                    if (!Arrays.equals(sum, ringSum(world, length, length))) {
                      wrong
                          .append(" sum of ")
                          .append(length)
                          .append(": ")
                          .append(Arrays.toString(sum));
                    }
                    float[] mean =
                        collective.allReduceMean(values(collective.rank(), length, length));
                    float[] expected = ringSum(world, length, length);
                    for (int i = 0; i < length; i++) {
                      expected[i] /= world;
                    }
                    if (!Arrays.equals(mean, expected)) {
                      wrong
                          .append(" mean of ")
                          .append(length)
                          .append(": ")
                          .append(Arrays.toString(mean));
                    }
                  }
                }
                return wrong.length() == 0 ? "ok" : wrong.toString();
              });
      assertThat(results).as("%d ranks", ranks).containsOnly("ok");
    }
  }

  @Test
  void shouldGiveTheRingsBitsWhenSegmentsSpanSeveralFrames() throws Exception {
    int length = 1_000_003; // segments of several frames, the last one short
    for (int ranks : new int[] {3, 4}) {
      int world = ranks;
      float[] expected = ringSum(world, length, 7);
      List<Object> results =
          ThreadRanks.run(
              ranks,
              LONG,
              collective -> {
                collective.algorithm(AllReduceAlgorithm.RING);
                for (int run = 0; run < 2; run++) { // the same bits run after run
                  float[] sum = collective.allReduceSum(values(collective.rank(), length, 7));
                  for (int i = 0; i < length; i++) {
                    if (Float.floatToRawIntBits(sum[i]) != Float.floatToRawIntBits(expected[i])) {
                      return "run "
                          + run
                          + ", element "
                          + i
                          + ": "
                          + sum[i]
                          + " (expected: "
                          + expected[i]
                          + ")";
                    }
                  }
                }
                return "ok";
              });
      assertThat(results).as("%d ranks", ranks).containsOnly("ok");
    }
  }

  @Test
  void shouldSumDoublesAndLongsAroundTheRing() throws Exception {
    List<Object> results =
        ThreadRanks.run(
            3,
            LONG,
            collective -> {
              collective.algorithm(AllReduceAlgorithm.RING);
              int r = collective.rank();
              double[] doubles = collective.allReduceSum(new double[] {r * 0.25, 1e300, -r, 4});
              long[] longs = collective.allReduceSum(new long[] {r, Long.MAX_VALUE / 2, 1L << 40});
              return Arrays.toString(doubles) + " " + Arrays.toString(longs);
            });
    assertThat(results)
        .containsOnly(
            "[0.75, 3.0E300, -3.0, 12.0] [3, "
                + (Long.MAX_VALUE / 2 * 3)
                + ", "
                + (3L << 40)
                + "]");
  }

  @Test
  void shouldReduceLargeArraysInFramesToTheStarsResultWhereAdditionIsExact() throws Exception {
    int length = 1_000_003; // segments of several frames, not a multiple of the ranks
    List<Object> results =
        ThreadRanks.run(
            4,
            LONG,
            collective -> {
              float[] star = new float[length];
              float[] ring = new float[length];
              for (int i = 0; i < length; i++) {
                star[i] = (i % 1000) * (collective.rank() + 1);
              }
              System.arraycopy(star, 0, ring, 0, length);
              collective.algorithm(AllReduceAlgorithm.STAR).allReduceMean(star);
              collective.algorithm(AllReduceAlgorithm.RING).allReduceMean(ring);
              for (int i = 0; i < length; i++) {
                if (ring[i] != (i % 1000) * 2.5f || star[i] != ring[i]) {
                  return "element " + i + ": ring " + ring[i] + ", star " + star[i];
                }
              }
              return "ok";
            });
    assertThat(results).containsOnly("ok");
  }

  @Test
  void shouldTakeTheRingFromItsThresholdOnAndTheStarBelow() throws Exception {
    int large = (int) (Collective.ringMinBytes(3) / Float.BYTES);
    List<Object> results =
        ThreadRanks.run(
            3,
            LONG,
            collective -> {
              float value = new float[] {1e8f, 1f, -1e8f}[collective.rank()];
              float[] small = new float[large - 1];
              float[] big = new float[large];
              Arrays.fill(small, value);
              Arrays.fill(big, value);
              collective.allReduceSum(small);
              collective.allReduceSum(big);
              // rank order (the star) gives (1e8 + 1) - 1e8 = 0 everywhere; the ring's last segment
              // starts at rank 2: (-1e8 + 1e8) + 1 = 1
              return collective.algorithmFor(4L * small.length)
                  + " "
                  + small[0]
                  + " "
                  + small[large - 2]
                  + " "
                  + collective.algorithmFor(4L * big.length)
                  + " "
                  + big[0]
                  + " "
                  + big[large - 1];
            });
    assertThat(results).containsOnly("STAR 0.0 0.0 RING 0.0 1.0");
  }

  @Test
  void shouldFailEveryRankNamingEachRanksCallWhenOneTakesTheStarAndStayInStep() throws Exception {
    int large = (int) (Collective.ringMinBytes(3) / Float.BYTES);
    List<Object> results =
        ThreadRanks.run(
            3,
            LONG,
            collective -> {
              int length = collective.rank() == 1 ? 100 : large;
              String error = null;
              try {
                collective.allReduceMean(new float[length]);
              } catch (IllegalStateException e) {
                error = e.getMessage();
              }
              return error
                  + " | then "
                  + collective.allReduceSum(new float[large])[0]
                  + " "
                  + collective.allReduceSum(new long[] {1})[0];
            });
    for (int r = 0; r < 3; r++) {
      assertThat((String) results.get(r))
          .isEqualTo(
              "rank "
                  + r
                  + ": allReduceMean(float[]) "
                  + "call #1: the ranks disagree: rank 0: allReduceMean(float[]) of "
                  + large
                  + " values by the ring, rank 1: allReduceMean(float[]) of 100 values by the star, rank "
                  + "2: allReduceMean(float[]) of "
                  + large
                  + " values by the ring (expected: the same "
                  + "call with arrays of the same length on every rank, in the same order) | then 0.0 3");
    }
  }

  @Test
  void shouldFailEveryRankWhenTheRanksChooseDifferentAlgorithms() throws Exception {
    List<Object> results =
        ThreadRanks.run(
            2,
            LONG,
            collective -> {
              collective.algorithm(
                  collective.rank() == 0 ? AllReduceAlgorithm.STAR : AllReduceAlgorithm.RING);
              try {
                return collective.allReduceSum(new double[3]);
              } catch (IllegalStateException e) {
                return e.getMessage();
              }
            });
    assertThat(results)
        .allSatisfy(
            message ->
                assertThat((String) message)
                    .contains(
                        "rank 0: allReduceSum(double[]) of 3 values by the star, rank 1: allReduceSum(double[]) "
                            + "of 3 values by the ring"));
  }

  @Test
  void shouldFailNotHangWhenAPeerGoesAwayBetweenRingCalls() throws Exception {
    List<Object> results =
        ThreadRanks.run(
            4,
            LONG,
            collective -> {
              collective.algorithm(AllReduceAlgorithm.RING);
              collective.allReduceMean(new float[10_000]);
              if (collective.rank() == 2) {
                Thread.sleep(100);
                collective.close();
                return "closed";
              }
              return collective.allReduceMean(new float[10_000]);
            });
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith(
            "rank 0: allReduceMean(float[]) call #2: the connection to rank " + "2 was lost");
    for (int r : new int[] {1, 3}) {
      assertThat((Throwable) results.get(r))
          .isInstanceOf(CollectiveException.class)
          .hasMessageStartingWith(
              "rank " + r + ": allReduceMean(float[]) call #2: the " + "connection to rank ");
    }
  }

  @Test
  void shouldSayWhyWhenTheRingIsAskedForButARankCannotListen() throws Exception {
    ThreadRanks.Gather gather =
        new ThreadRanks.Gather(
            2,
            () -> {},
            (rank, all) -> {
              all[1] = ""; // rank 1 said nowhere
              return all;
            });
    List<Object> results =
        ThreadRanks.run(
            gather,
            2,
            LONG,
            collective -> {
              float[] auto = collective.allReduceSum(new float[(int) Collective.ringMinBytes(2)]);
              try {
                collective.algorithm(AllReduceAlgorithm.RING).allReduceSum(new float[2]);
                return "no error";
              } catch (CollectiveException e) {
                return auto.length + " by the star; " + e.getMessage();
              }
            });
    assertThat(results.get(0))
        .isEqualTo(
            Collective.ringMinBytes(2)
                + " by the star; rank 0: "
                + "allReduceSum(float[]) call #2: the ring was asked for, but the ranks have none: a rank "
                + "did not say where it listens for the ring (expected: AllReduceAlgorithm.AUTO or "
                + "STAR, or every rank able to listen for the ring)");
  }

  /** A free port of the loopback with {@code count - 1} free ones after it, or -1. */
  private static int freePorts(int count) throws java.io.IOException {
    for (int attempt = 0; attempt < 20; attempt++) {
      int first;
      try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
        first = probe.getLocalPort();
      }
      if (first + count > 65535) {
        continue;
      }
      boolean free = true;
      for (int port = first; port < first + count && free; port++) {
        try (java.net.ServerSocket probe =
            new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
          free = probe.getLocalPort() == port;
        } catch (java.io.IOException e) {
          free = false;
        }
      }
      if (free) {
        return first;
      }
    }
    return -1;
  }

  @Test
  void shouldListenOnlyOnThePinnedPorts() throws Exception {
    int first = freePorts(4);
    assertThat(first).as("4 free ports in a row on the loopback").isPositive();
    ListenOn pinned = new ListenOn("127.0.0.1", first, first + 3);
    ThreadRanks.Gather gather = new ThreadRanks.Gather(3);
    List<Object> results =
        ThreadRanks.run(
            gather,
            3,
            LONG,
            pinned,
            collective ->
                collective.algorithm(AllReduceAlgorithm.RING).allReduceSum(new long[] {1, 2})[1]);
    assertThat(results).containsOnly(6L);
    List<Integer> ports = new java.util.ArrayList<>();
    ports.add(Wire.listening(gather.first()).getPort()); // the star's
    ports.add(Integer.parseInt(gather.first().substring(gather.first().indexOf(' ') + 1)));
    for (int r = 1; r < 3; r++) {
      ports.add(
          Integer.parseInt(gather.message(r).substring(gather.message(r).lastIndexOf(':') + 1)));
    }
    assertThat(ports).containsExactlyInAnyOrder(first, first + 1, first + 2, first + 3);
  }

  @Test
  void shouldNameThePortsWhenEveryPinnedOneIsTaken() throws Exception {
    int first = freePorts(1);
    assertThat(first).as("a free port on the loopback").isPositive();
    ListenOn pinned = new ListenOn("127.0.0.1", first, first); // rank 0 needs two
    List<Object> results =
        ThreadRanks.run(
            new ThreadRanks.Gather(2),
            2,
            LONG,
            pinned,
            collective -> collective.allReduceSum(new long[1]));
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith(
            "rank 0 could not listen on 127.0.0.1 (ports "
                + first
                + "): "
                + "java.net.BindException: ")
        .hasMessageEndingWith(
            "(expected: an address of this executor that the other executors "
                + "can reach; free a port of "
                + first
                + "-"
                + first
                + " or widen "
                + "spark.stoker.collective.ports)");
    assertThat((Throwable) results.get(1))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith("rank 1: rank 0 could not listen on 127.0.0.1");
  }

  @Test
  void shouldFailEveryRankWithinTheTimeoutNamingTheRankThatCannotBeReached() throws Exception {
    int closed = freePorts(1);
    ThreadRanks.Gather gather =
        new ThreadRanks.Gather(
            3,
            () -> {},
            (rank, all) -> {
              if (rank == 1) {
                all[2] =
                    "127.0.0.1:" + closed; // rank 1 is told a port nobody listens on, as a firewall
              }
              return all;
            });
    long start = System.nanoTime();
    List<Object> results =
        ThreadRanks.run(
            gather, 3, Duration.ofMillis(1500), collective -> collective.allReduceSum(new long[1]));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    assertThat((Throwable) results.get(1))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith(
            "rank 1 could not connect to rank 2 at 127.0.0.1:"
                + closed
                + ": java.net.ConnectException: ")
        .hasMessageEndingWith(
            "(expected: executors that reach each other over TCP; a firewall "
                + "between them must let the collective's ports through: see "
                + "spark.stoker.collective.ports)");
    assertThat((Throwable) results.get(2))
        .isInstanceOf(CollectiveException.class)
        .hasMessage(
            "rank 2: the ring's meeting: rank 1 did not connect within 1500 ms "
                + "(expected: every rank to make the same collective calls in the same order; if a "
                + "rank is just slow, raise timeout)");
    // refused, or reset once rank 1 closed its listener: either way naming rank 1
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith("rank 0 ")
        .hasMessageContaining(" to rank 1 at 127.0.0.1:");
  }
}
