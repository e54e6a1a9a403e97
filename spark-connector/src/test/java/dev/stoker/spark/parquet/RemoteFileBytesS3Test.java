package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.spark.testing.S3TestServer;
import dev.stoker.spark.testing.ThrottlingProxy;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Range requests through s3a against a real S3 server: the bytes as written, and an object replaced
 * after it was listed refused, never read as a mix of two versions.
 */
class RemoteFileBytesS3Test {
  private static final ExecutorService THREADS = Executors.newFixedThreadPool(4);
  private static FileSystem fs;

  @BeforeAll
  static void connect() throws IOException {
    Configuration conf = new Configuration();
    S3TestServer.shared().hadoopConf().forEach(conf::set);
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    fs = new Path(S3TestServer.shared().path("")).getFileSystem(conf);
  }

  @AfterAll
  static void close() throws IOException {
    THREADS.shutdownNow();
    if (fs != null) {
      fs.close();
    }
  }

  private static byte[] write(Path path, long seed) throws IOException {
    byte[] bytes = new byte[300_000];
    new Random(seed).nextBytes(bytes);
    try (FSDataOutputStream out = fs.create(path, true)) {
      out.write(bytes);
    }
    return bytes;
  }

  private static RemoteFileBytes open(FileStatus status) {
    List<List<FileRange>> groups =
        List.of(List.of(new FileRange(0, 100_000), new FileRange(100_000, 300_000)));
    StorageReads settings = new StorageReads(0, 64 << 10, 1 << 20, 2, 1);
    return new RemoteFileBytes(
        new RangeSource(fs, status),
        RangePlan.of(groups, settings.coalesceGapBytes(), settings.requestBytes()),
        settings,
        THREADS,
        null);
  }

  @Test
  void shouldRetryTheRequestsTheStoreThrottles() throws IOException {
    Path path = new Path(S3TestServer.shared().path("throttled-" + System.nanoTime()));
    byte[] written = write(path, 3);
    try (ThrottlingProxy proxy = ThrottlingProxy.start(S3TestServer.shared().port())) {
      Configuration conf = new Configuration();
      S3TestServer.shared().hadoopConf().forEach(conf::set);
      conf.set("fs.s3a.endpoint", "http://127.0.0.1:" + proxy.port());
      conf.setBoolean("fs.s3a.impl.disable.cache", true);
      // s3a gives up on the first 503, so that Stoker's own retries are what mends it
      conf.setInt("fs.s3a.attempts.maximum", 0);
      conf.setInt("fs.s3a.retry.throttle.limit", 0);
      conf.setInt("fs.s3a.retry.limit", 0);
      try (FileSystem throttled = path.getFileSystem(conf)) {
        FileStatus status = throttled.getFileStatus(path);
        StorageReads settings = new StorageReads(0, 32 << 10, 1 << 20, 4, 1);
        List<List<FileRange>> groups = List.of(List.of(new FileRange(0, 300_000)));
        StorageCounters before = StorageCounters.now();
        byte[] all = new byte[300_000];
        try (RemoteFileBytes bytes =
            new RemoteFileBytes(
                new RangeSource(throttled, status),
                RangePlan.of(groups, settings.coalesceGapBytes(), settings.requestBytes()),
                settings,
                THREADS,
                null)) {
          bytes.readFully(0, all, 0, all.length);
        }
        assertThat(all).isEqualTo(written);
        // every range throttled once, then served: each request tried twice
        long requests = proxy.throttled();
        assertThat(requests).as("ranges the store throttled").isGreaterThanOrEqualTo(9);
        assertThat(StorageCounters.now().since(before).retries())
            .as("requests Stoker made again")
            .isGreaterThanOrEqualTo(requests);
      }
    }
  }

  @Test
  void shouldReadRangesAsWrittenAndRefuseAnObjectReplacedSinceItWasListed() throws IOException {
    Path path = new Path(S3TestServer.shared().path("ranges-" + System.nanoTime()));
    byte[] written = write(path, 1);
    FileStatus status = fs.getFileStatus(path);
    try (RemoteFileBytes bytes = open(status)) {
      byte[] all = new byte[300_000];
      bytes.readFully(0, all, 0, 100_000);
      bytes.readFully(100_000, all, 100_000, 200_000);
      assertThat(all).isEqualTo(written);
    }
    byte[] replaced = write(path, 2);
    assertThat(replaced).isNotEqualTo(written);
    try (RemoteFileBytes bytes = open(status)) {
      byte[] some = new byte[1000];
      assertThatThrownBy(() -> bytes.readFully(150_000, some, 0, some.length))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("'" + status.getPath() + "' changed since it was listed")
          .hasMessageContaining("ETag")
          .hasMessageContaining("read again");
      assertThat(Arrays.equals(some, Arrays.copyOfRange(replaced, 150_000, 151_000)))
          .as("no byte of the new object read as the old one's")
          .isFalse();
    }
  }
}
