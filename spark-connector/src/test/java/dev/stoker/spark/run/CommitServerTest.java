package dev.stoker.spark.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.state.InputFingerprint;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.parquet.ReadPlan;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The driver's commit server and log without Spark: the last state every rank committed wins,
 * commits of an attempt older than the newest are ignored, and a stranger without the run's secret
 * can neither commit nor learn a state.
 */
class CommitServerTest {
  private static final InputFingerprint FILES = InputFingerprint.ofRows(1000);
  private final AtomicInteger plans = new AtomicInteger();
  private CommitLog log;
  private CommitServer server;
  private CommitEndpoint endpoint;

  private static LoaderState at(long batches) {
    return LoaderState.startOf(7, true, 0, 0, 2, 10, true, 16, FILES).plusBatches(batches);
  }

  @BeforeEach
  void start() throws IOException {
    log =
        new CommitLog(
            2,
            null,
            state -> {
              plans.incrementAndGet();
              return new ReadPlan(1000, 1, 10, 1, 0, 0, List.of(List.of(), List.of()));
            });
    server = new CommitServer(log, "127.0.0.1");
    endpoint = server.endpoint("127.0.0.1", 0, false, 16, FILES);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void shouldStartFromTheLastStateEveryRankCommitted() throws IOException {
    assertThat(CommitClient.start(endpoint, 0, 0)).isNull();
    CommitClient.commit(endpoint, 0, 0, at(40));
    CommitClient.commit(endpoint, 1, 0, at(40));
    CommitClient.commit(endpoint, 0, 0, at(80)); // rank 1 failed before step 80

    CommitLog.Start start = CommitClient.start(endpoint, 1, 1);

    assertThat(start.state()).isEqualTo(at(40));
    assertThat(start.runs().rank()).isEqualTo(1);
    assertThat(log.common()).isEqualTo(at(40));
    CommitClient.start(endpoint, 0, 1);
    assertThat(plans).as("one plan per state").hasValue(1);
  }

  @Test
  void shouldIgnoreCommitsOfAnAttemptOlderThanTheNewest() throws IOException {
    CommitClient.start(endpoint, 0, 1);
    CommitClient.commit(endpoint, 0, 0, at(40));
    CommitClient.commit(endpoint, 1, 0, at(40));

    assertThat(log.common()).isNull();
  }

  @Test
  void shouldDropAStrangerWithoutTheSecret() throws IOException {
    CommitEndpoint stranger =
        new CommitEndpoint("127.0.0.1", endpoint.port(), new byte[32], 0, 16, FILES);

    assertThatThrownBy(() -> CommitClient.commit(stranger, 0, 0, at(40)))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> CommitClient.start(stranger, 0, 0)).isInstanceOf(IOException.class);
    try (Socket socket = new Socket("127.0.0.1", endpoint.port())) {
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      out.writeInt(Integer.MAX_VALUE); // a frame larger than any commit
      out.flush();
      assertThat(new DataInputStream(socket.getInputStream()).read()).isEqualTo(-1);
    }
    CommitClient.commit(endpoint, 0, 0, at(40));
    CommitClient.commit(endpoint, 1, 0, at(40));
    assertThat(log.common()).as("the ranks go on").isEqualTo(at(40));
  }

  @Test
  @Timeout(120)
  void shouldAcceptTheNextConnectionWhenOneCannotBeHandled() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    AtomicInteger asked = new AtomicInteger();
    ExecutorService failing =
        new AbstractExecutorService() {
          @Override
          public void execute(Runnable command) {
            switch (asked.incrementAndGet()) {
              case 1 -> throw new RejectedExecutionException("the handlers are saturated");
              case 2 -> throw new OutOfMemoryError("unable to create native thread");
              default -> pool.execute(command);
            }
          }

          @Override
          public void shutdown() {
            pool.shutdown();
          }

          @Override
          public List<Runnable> shutdownNow() {
            return pool.shutdownNow();
          }

          @Override
          public boolean isShutdown() {
            return pool.isShutdown();
          }

          @Override
          public boolean isTerminated() {
            return pool.isTerminated();
          }

          @Override
          public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
            return pool.awaitTermination(timeout, unit);
          }
        };
    try (CommitServer flaky = new CommitServer(log, "127.0.0.1", failing)) {
      CommitEndpoint at = flaky.endpoint("127.0.0.1", 0, false, 16, FILES);
      assertThatThrownBy(() -> CommitClient.commit(at, 0, 0, at(40)))
          .as("dropped at once, not left to time out")
          .isInstanceOf(IOException.class);
      assertThatThrownBy(() -> CommitClient.commit(at, 1, 0, at(40)))
          .isInstanceOf(IOException.class);

      CommitClient.commit(at, 0, 0, at(40));
      CommitClient.commit(at, 1, 0, at(40));

      assertThat(asked).hasValue(4);
      assertThat(log.common()).as("the server went on").isEqualTo(at(40));
    }
    assertThat(pool.isShutdown()).as("its handlers are shut down on close").isTrue();
  }
}
