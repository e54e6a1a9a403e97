package dev.stoker.tools.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The object-store benchmark on a small input against a real S3 server behind the delay proxy (no
 * rate, so no root needed): both reads give full batches, the server counts the requests, the
 * cached epoch makes none; and the proxy delays what it carries both ways. No timing of speed.
 */
class ObjectStoreBenchTest {

  @Test
  void shouldReadTheObjectsBothWaysAndServeTheCachedEpochWithoutARequest() {
    requireServer();
    StringWriter progress = new StringWriter();
    ObjectStoreBenchResult result =
        ObjectStoreBench.run(
            new ObjectStoreBench.Config(6000, 2, 32, 1, 10, 0), new PrintWriter(progress, true));

    assertThat(result.rowsPerRun()).isEqualTo(6000 / 64 * 64);
    assertThat(result.stoker()).hasSize(1);
    assertThat(result.stoker().get(0).requests()).as("the server's object reads").isPositive();
    assertThat(result.stoker().get(0).bytes()).as("bytes Stoker read").isPositive();
    assertThat(result.stoker().get(0).firstBatchSeconds()).isPositive();
    assertThat(result.epoch2Requests()).isZero();
    assertThat(progress.toString())
        .contains("wrote 6,000 rows to s3a://stoker/data", "10.0 ms round trip, no rate limit");
    StringWriter report = new StringWriter();
    result.print(new PrintWriter(report, true));
    assertThat(report.toString())
        .contains("workload object-store", "a link of 10.0 ms round trip, no rate limit")
        .doesNotContain("link limit");
    assertThat(result.json())
        .contains(
            "\"workload\": \"object-store\"",
            "\"rtt_ms\": 10.000",
            "\"link_gb_s\": null",
            "\"link_limit_rows_per_s\": null",
            "\"stoker_rows_per_s\": ",
            "\"spark_rows_per_s\": ",
            "\"requests\": ",
            "\"first_batch_s\": ",
            "\"epoch2_requests\": 0");
  }

  @Test
  void shouldDelayWhatTheProxyCarriesInEachDirection() throws Exception {
    try (ServerSocket echo = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        DelayProxy proxy =
            new DelayProxy(new InetSocketAddress(echo.getInetAddress(), echo.getLocalPort()))) {
      Thread server =
          new Thread(
              () -> {
                try (Socket s = echo.accept()) {
                  InputStream in = s.getInputStream();
                  OutputStream out = s.getOutputStream();
                  for (int b; (b = in.read()) >= 0; ) {
                    out.write(b);
                    out.flush();
                  }
                } catch (Exception e) {
                  // the client closed
                }
              });
      server.start();
      proxy.delay(40);
      try (Socket client = new Socket()) {
        client.connect(proxy.address());
        long started = System.nanoTime();
        client.getOutputStream().write(7);
        client.getOutputStream().flush();
        assertThat(client.getInputStream().read()).isEqualTo(7);
        assertThat((System.nanoTime() - started) / 1e6)
            .as("a round trip: the delay each way")
            .isGreaterThanOrEqualTo(80);
      }
      server.join(10_000);
    }
  }

  @Test
  void shouldRefuseBadSettings() {
    assertThatThrownBy(() -> new ObjectStoreBench.Config(100, 2, 64, 1, 20, 0.125))
        .hasMessageContaining("rows: 100 (expected: at least ranks x batchSize = 128");
    assertThatThrownBy(() -> new ObjectStoreBench.Config(1000, 2, 64, 1, -1, 0.125))
        .hasMessageContaining("rtt -1.0 ms")
        .hasMessageContaining("rtt and link >= 0");
  }

  private static void requireServer() {
    try {
      S3Server.binary();
    } catch (IllegalStateException missing) {
      if (System.getenv("CI") != null) {
        throw missing;
      }
      Assumptions.abort(missing.getMessage());
    }
  }
}
