package dev.stoker.tools.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.spark.collective.Collective;
import dev.stoker.spark.collective.Waits;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The benchmark's ranks meeting through its TCP rendezvous, as processes on hosts would. */
@Timeout(60)
class AllReduceHostsTest {
  @Test
  void shouldMeetThroughRank0sSocketAndReduceByStarAndRing() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    String rendezvous = "127.0.0.1:" + port;
    AllReduceBench.Config config = new AllReduceBench.Config(List.of(3), List.of(1000, 7), 1, 0);
    ExecutorService ranks = Executors.newFixedThreadPool(3);
    try {
      List<Future<List<AllReduceResult.Row>>> futures = new ArrayList<>();
      for (int r = 2; r >= 0; r--) { // rank 0 comes last: the others wait for its socket
        int rank = r;
        futures.add(
            ranks.submit(
                () -> {
                  try (Collective collective =
                      Collective.connect(
                          rank,
                          3,
                          0,
                          "127.0.0.1",
                          AllReduceHosts.tcp(rank, 3, rendezvous),
                          Waits.of(Duration.ofSeconds(30)))) {
                    float[] sum = collective.allReduceSum(new float[] {rank, 1});
                    assertThat(sum).containsExactly(3f, 3f);
                    return AllReduceBench.measure(collective, config, "loopback", null, null);
                  }
                }));
      }
      List<String> rows = new ArrayList<>();
      for (Future<List<AllReduceResult.Row>> future : futures) {
        for (AllReduceResult.Row row : future.get(30, TimeUnit.SECONDS)) {
          rows.add(row.ranks() + " " + row.floats() + " " + row.algorithm());
        }
      }
      assertThat(rows).containsExactly("3 1000 STAR", "3 1000 RING", "3 7 STAR", "3 7 RING");
    } finally {
      ranks.shutdownNow();
    }
  }
}
