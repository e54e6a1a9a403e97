package dev.stoker.loader.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JoinedThreadsTest {

  @Test
  void shouldLeaveNoThreadOfAShutDownPoolAliveOnceJoined() throws Exception {
    for (int round = 0; round < 200; round++) {
      List<Thread> made = new ArrayList<>();
      JoinedThreads threads = new JoinedThreads("joined-test-" + round + "-");
      ThreadFactory recording =
          task -> {
            Thread thread = threads.newThread(task);
            made.add(thread);
            return thread;
          };
      ExecutorService pool = Executors.newFixedThreadPool(3, recording);
      for (int i = 0; i < 3; i++) {
        pool.submit(() -> {});
      }
      pool.shutdownNow();

      assertThat(threads.join(10, TimeUnit.SECONDS)).isTrue();
      assertThat(made).isNotEmpty().allMatch(thread -> !thread.isAlive());
    }
  }

  @Test
  void shouldNameDaemonThreadsAndReportOneStillRunningPastTheTimeout() throws Exception {
    JoinedThreads threads = new JoinedThreads("joined-stuck-");
    CountDownLatch release = new CountDownLatch(1);
    Thread stuck = threads.newThread(() -> awaitQuietly(release));
    stuck.start();
    try {
      assertThat(stuck.getName()).isEqualTo("joined-stuck-1");
      assertThat(stuck.isDaemon()).isTrue();
      assertThat(threads.join(50, TimeUnit.MILLISECONDS)).isFalse();
    } finally {
      release.countDown();
    }
    assertThat(threads.join(10, TimeUnit.SECONDS)).isTrue();
    assertThat(stuck.isAlive()).isFalse();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
