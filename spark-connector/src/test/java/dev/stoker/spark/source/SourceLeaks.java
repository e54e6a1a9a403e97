package dev.stoker.spark.source;

import dev.stoker.spark.parquet.ParquetRunReader;
import dev.stoker.spark.parquet.SparkParquet;
import static org.assertj.core.api.Assertions.assertThat;

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
    assertThat(RankReader.openReaders()).as("rank readers open").isZero();
    assertThat(SparkParquet.openReaders()).as("Spark's Parquet readers open").isZero();
    assertThat(ParquetRunReader.openReaders()).as("Parquet file readers open").isZero();
    assertThat(threads()).as("source threads alive").isEmpty();
  }

  private static boolean nothingOpen() {
    return RankReader.openReaders() == 0 && SparkParquet.openReaders() == 0
        && ParquetRunReader.openReaders() == 0 && threads().isEmpty();
  }

  private static List<String> threads() {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("stoker-source") || name.startsWith("stoker-footers"))
        .collect(Collectors.toList());
  }
}
