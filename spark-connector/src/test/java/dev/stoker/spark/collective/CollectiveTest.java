package dev.stoker.spark.collective;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The star all-reduce with threads as ranks, on the loopback. */
@Timeout(60)
class CollectiveTest {
  private static final Duration LONG = Duration.ofSeconds(30);

  @BeforeAll
  static void warmUp() throws Exception {
    // the JVM's first HMAC and SecureRandom take a moment; a test below times a meeting
    ThreadRanks.run(2, LONG, c -> c.allReduceSum(new long[1]));
  }

  @Test
  void shouldAverageFloatsToTheSameBitsOnEveryRank() throws Exception {
    List<Object> results =
        ThreadRanks.run(
            3,
            LONG,
            collective -> {
              float r = collective.rank();
              float[] values = {r, 0.1f * (r + 1), -r * 1.5f, 7};
              float[] same = collective.allReduceMean(values);
              assertThat(same).isSameAs(values);
              return values;
            });
    float[] expected = {
      (0f + 1f + 2f) / 3f, (0.1f * 1 + 0.1f * 2 + 0.1f * 3) / 3f, (-0f - 1.5f - 3f) / 3f, 7f
    };
    assertThat(results)
        .allSatisfy(values -> assertThat((float[]) values).containsExactly(expected));
  }

  @Test
  void shouldSumFloatsDoublesAndLongs() throws Exception {
    List<Object> results =
        ThreadRanks.run(
            4,
            LONG,
            collective -> {
              int r = collective.rank();
              float[] floats = collective.allReduceSum(new float[] {r, 0.5f});
              double[] doubles = collective.allReduceSum(new double[] {r * 0.25, 1e300, -r});
              long[] longs = collective.allReduceSum(new long[] {r, Long.MAX_VALUE / 4, 1L << 40});
              long[] empty = collective.allReduceSum(new long[0]);
              return floats[0]
                  + " "
                  + floats[1]
                  + " "
                  + doubles[0]
                  + " "
                  + doubles[1]
                  + " "
                  + doubles[2]
                  + " "
                  + longs[0]
                  + " "
                  + longs[1]
                  + " "
                  + longs[2]
                  + " "
                  + empty.length;
            });
    assertThat(results)
        .containsOnly(
            "6.0 2.0 1.5 4.0E300 -6.0 6 " + (Long.MAX_VALUE / 4 * 4) + " " + (4L << 40) + " 0");
  }

  @Test
  void shouldAddInRankOrderWhateverOrderTheValuesArriveIn() throws Exception {
    for (int round = 0; round < 5; round++) {
      List<Object> results =
          ThreadRanks.run(
              3,
              LONG,
              collective -> {
                Thread.sleep(ThreadLocalRandom.current().nextInt(30));
                float[] values = {new float[] {1e8f, 1f, -1e8f}[collective.rank()]};
                return collective.allReduceSum(values)[0];
              });
      // (1e8 + 1) rounds to 1e8, so rank order gives 0; any other order would give 1
      assertThat(results).containsOnly(0f);
    }
  }

  @Test
  void shouldFailEveryRankNamingTheLengthsWhenTheyDifferAndStayInStep() throws Exception {
    List<Object> results =
        ThreadRanks.run(
            3,
            LONG,
            collective -> {
              int length = collective.rank() == 1 ? 5 : 4;
              String error = null;
              try {
                collective.allReduceMean(new float[length]);
              } catch (IllegalStateException e) {
                error = e.getMessage();
              }
              return error + " | then " + collective.allReduceSum(new long[] {1})[0];
            });
    for (int r = 0; r < 3; r++) {
      assertThat((String) results.get(r))
          .isEqualTo(
              "rank "
                  + r
                  + ": allReduceMean(float[]) "
                  + "call #1: the ranks disagree: rank 0: allReduceMean(float[]) of 4 values, rank 1: "
                  + "allReduceMean(float[]) of 5 values, rank 2: allReduceMean(float[]) of 4 values "
                  + "(expected: the same call with arrays of the same length on every rank, in the same "
                  + "order) | then 3");
    }
  }

  @Test
  void shouldNameTheCallWhenRanksMakeDifferentOnes() throws Exception {
    List<Object> results =
        ThreadRanks.run(
            2,
            LONG,
            collective -> {
              try {
                return collective.rank() == 0
                    ? collective.allReduceMean(new float[2])
                    : collective.allReduceSum(new double[2]);
              } catch (IllegalStateException e) {
                return e.getMessage();
              }
            });
    assertThat(results)
        .allSatisfy(
            message ->
                assertThat((String) message)
                    .contains(
                        "rank 0: allReduceMean(float[]) of 2 values, rank 1: allReduceSum(double[]) of 2 values"));
  }

  @Test
  void shouldFailNotHangWhenAPeerGoesAwayMidTraining() throws Exception {
    long start = System.nanoTime();
    List<Object> results =
        ThreadRanks.run(
            3,
            LONG,
            collective -> {
              collective.allReduceMean(new float[1000]);
              if (collective.rank() == 2) {
                Thread.sleep(100); // the others are waiting in their next call by now
                collective.close();
                return "closed";
              }
              return collective.allReduceMean(new float[1000]);
            });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LONG);
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessageContaining(
            "rank 0: allReduceMean(float[]) call #2: the connection to rank 2 "
                + "was lost (closed by the peer; did its task fail or get killed?)");
    assertThat((Throwable) results.get(1))
        .isInstanceOf(CollectiveException.class)
        .hasMessageContaining(
            "rank 1: allReduceMean(float[]) call #2: the connection to rank 0 " + "was lost");
    assertThat(results.get(2)).isEqualTo("closed");
  }

  @Test
  void shouldTimeOutOnAPeerThatNeverCallsAndReleaseTheOthers() throws Exception {
    // the timeout also bounds the meeting: long enough for the ranks to connect on a busy machine
    List<Object> results =
        ThreadRanks.run(
            3,
            Duration.ofMillis(1500),
            collective -> {
              if (collective.rank() == 2) {
                Thread.sleep(3000);
                return "asleep";
              }
              return collective.allReduceSum(new double[3]);
            });
    assertThat((Throwable) results.get(0))
        .isInstanceOf(CollectiveException.class)
        .hasMessageContaining(
            "rank 0: allReduceSum(double[]) call #1 (waiting for rank 2): "
                + "nothing for 1500 ms (expected: every rank to make the same collective calls in the "
                + "same order; if a rank is just slow, raise timeout)");
    // rank 1 learns it from the closed connection, or times out itself at about the same time
    assertThat((Throwable) results.get(1))
        .isInstanceOf(CollectiveException.class)
        .hasMessageStartingWith("rank 1: allReduceSum(double[]) call #1");
  }

  @Test
  void shouldStopWaitingWhenTheTaskIsCancelled() throws Exception {
    AtomicBoolean cancelled = new AtomicBoolean();
    ThreadRanks.Gather gather = new ThreadRanks.Gather(2);
    Thread peer =
        new Thread(
            () -> {
              try (Collective collective =
                  Collective.connect(1, 2, 0, "127.0.0.1", gather.of(1), Waits.of(LONG))) {
                Thread.sleep(10_000); // never calls
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    peer.start();
    Waits waits =
        new Waits(
            LONG,
            "collectiveTimeout",
            () -> {
              if (cancelled.get()) {
                throw new IllegalStateException("task killed");
              }
            });
    try (Collective collective = Collective.connect(0, 2, 0, "127.0.0.1", gather.of(0), waits)) {
      new Thread(
              () -> {
                sleep(200);
                cancelled.set(true);
              })
          .start();
      assertThatThrownBy(() -> collective.allReduceMean(new float[3])).hasMessage("task killed");
      assertThatThrownBy(() -> collective.allReduceMean(new float[3]))
          .hasMessageContaining(
              "the connection failed earlier: java.lang.IllegalStateException: " + "task killed");
    } finally {
      peer.interrupt();
      peer.join();
    }
  }

  @Test
  void shouldLeaveValuesAsTheyAreInAWorldOfOne() throws Exception {
    List<Object> results =
        ThreadRanks.run(
            1,
            LONG,
            collective -> {
              float[] values = {1.5f, -2f};
              collective.allReduceMean(values);
              return values;
            });
    assertThat((float[]) results.get(0)).containsExactly(1.5f, -2f);
    try (Collective single = Collective.single()) {
      assertThat(single.allReduceSum(new long[] {4})).containsExactly(4);
    }
  }

  @Test
  void shouldReduceAMillionFloatsInChunks() throws Exception {
    int length = 1_000_000;
    List<Object> results =
        ThreadRanks.run(
            2,
            LONG,
            collective -> {
              float[] values = new float[length];
              for (int call = 0; call < 3; call++) {
                for (int i = 0; i < length; i++) {
                  values[i] = (i % 1000) * (collective.rank() + 1);
                }
                collective.allReduceMean(values);
              }
              for (int i = 0; i < length; i++) {
                if (values[i] != (i % 1000) * 1.5f) {
                  return "element " + i + ": " + values[i];
                }
              }
              return "ok";
            });
    assertThat(results).containsOnly("ok");
  }

  @Test
  void shouldRefuseARankOutsideTheWorld() {
    assertThatThrownBy(
            () -> Collective.connect(2, 2, 0, "127.0.0.1", m -> new String[0], Waits.of(LONG)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rank 2 of 2 (expected: 0 <= rank < worldSize)");
  }

  @Test
  void shouldCloseEveryConnectionOfAMeetingThatFailsWithAnError() throws Exception {
    java.net.Socket[] stranger = new java.net.Socket[1];
    Rendezvous rendezvous =
        message -> {
          stranger[0] = Wire.connect(Wire.listening(message)); // silent, accepted by rank 0
          return new String[] {message, ""};
        };
    long start = System.nanoTime();
    Waits failing =
        new Waits(
            LONG,
            "collectiveTimeout",
            () -> {
              if (System.nanoTime() - start > 300_000_000L) {
                throw new AssertionError("the cancellation check fails");
              }
            });
    try {
      assertThatThrownBy(() -> Collective.connect(0, 2, 0, "127.0.0.1", rendezvous, failing))
          .isInstanceOf(AssertionError.class)
          .hasMessage("the cancellation check fails");
      assertThat(Wire.dropped(stranger[0], 5000)).as("the stranger's connection closed").isTrue();
    } finally {
      Wire.closeQuietly(stranger[0]);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
