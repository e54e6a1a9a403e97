package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.spark.parquet.OpenCounts;
import java.util.List;
import java.util.stream.Collectors;

/** What a finished read must leave behind: no rank reader, Parquet reader or source thread. */
final class SourceLeaks {
  private static final long WAIT_MILLIS = 5_000;

  private SourceLeaks() {}

  static void assertNothingOpen() throws InterruptedException {
    long deadline = System.currentTimeMillis() + WAIT_MILLIS;
    while (System.currentTimeMillis() < deadline && !nothingOpen()) {
      Thread.sleep(20);
    }
    assertThat(OpenCounts.open(OpenCounts.Kind.RANK_READERS)).as("rank readers open").isZero();
    assertThat(OpenCounts.open(OpenCounts.Kind.SPARK_PARQUET_READERS))
        .as("Spark's Parquet readers open")
        .isZero();
    assertThat(OpenCounts.open(OpenCounts.Kind.PARQUET_FILE_READERS))
        .as("Parquet file readers open")
        .isZero();
    assertThat(threads()).as("source threads alive").isEmpty();
  }

  private static boolean nothingOpen() {
    return OpenCounts.open(OpenCounts.Kind.RANK_READERS) == 0
        && OpenCounts.open(OpenCounts.Kind.SPARK_PARQUET_READERS) == 0
        && OpenCounts.open(OpenCounts.Kind.PARQUET_FILE_READERS) == 0
        && threads().isEmpty();
  }

  private static List<String> threads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("stoker-source") || name.startsWith("stoker-footers"))
        .collect(Collectors.toList());
  }
}
