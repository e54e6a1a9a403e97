package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The options of format("stoker"), as Spark hands them over: strings, names in any case. */
class SourceOptionsTest {

  @Test
  void shouldTakeTheLoadersOptionsTheSourcesOwnAndHadoopSettings() {
    SourceOptions options =
        SourceOptions.parse(
            Map.of(
                "path",
                "/data",
                "BatchSize",
                "64",
                "WORLDSIZE",
                "4",
                "shuffle",
                "true",
                "seed",
                "42",
                "EPOCH",
                "3",
                "dropLast",
                "true",
                "shuffleBuffer",
                "1000",
                "Shape.Image",
                "3, 32, 32",
                "fs.s3a.endpoint",
                "http://x"));

    assertThat(options.loader().batchSize()).isEqualTo(64);
    assertThat(options.loader().shuffle()).isTrue();
    assertThat(options.loader().seed()).isEqualTo(42);
    assertThat(options.loader().dropLast()).isTrue();
    assertThat(options.worldSize()).isEqualTo(4);
    assertThat(options.epoch()).isEqualTo(3);
    assertThat(options.shuffleBuffer()).isEqualTo(1000);
    assertThat(options.shapes().get("image")).containsExactly(3, 32, 32);
    assertThat(options.hadoop()).containsExactly(Map.entry("fs.s3a.endpoint", "http://x"));
    assertThat(options.paths()).containsExactly("/data");
  }

  @Test
  void shouldDefaultToTheLoadersDefaultsOneRankAndEpochZero() {
    SourceOptions options = SourceOptions.parse(Map.of("path", "/data"));

    assertThat(options.loader().batchSize()).isEqualTo(1);
    assertThat(options.loader().dropLast()).isFalse();
    assertThat(options.worldSize()).isEqualTo(1);
    assertThat(options.epoch()).isZero();
    assertThat(options.shuffleBuffer()).isNull();
    assertThat(options.shapes()).isEmpty();
  }

  @Test
  void shouldReadSeveralPathsFromSparksJsonList() {
    SourceOptions options = SourceOptions.parse(Map.of("paths", "[\"/a\",\"hdfs://nn/b\"]"));

    assertThat(options.paths()).containsExactly("/a", "hdfs://nn/b");
  }

  @Test
  void shouldReadShapesWrittenInSeveralWays() {
    SourceOptions options =
        SourceOptions.parse(
            Map.of(
                "path",
                "/d",
                "shape.a",
                "784",
                "shape.b",
                "[1, 28, 28]",
                "shape.c",
                "3x64x64",
                "shape.d",
                "(2,2)"));

    assertThat(options.shapes().get("a")).containsExactly(784);
    assertThat(options.shapes().get("B")).containsExactly(1, 28, 28);
    assertThat(options.shapes().get("c")).containsExactly(3, 64, 64);
    assertThat(options.shapes().get("d")).containsExactly(2, 2);
  }

  @Test
  void shouldRefuseBadNamesAndValues() {
    assertBad(
        Map.of(),
        "path: none given (expected: load(path) with a Parquet file or "
            + "directory, or option(\"path\", ...) in SQL)");
    assertBad(
        Map.of("path", "/d", "worldSise", "2"),
        "option: 'worldSise' (expected: a known option; did you mean 'worldSize'?)");
    assertBad(
        Map.of("path", "/d", "epoc", "2"),
        "option: 'epoc' (expected: a known option; did you mean 'epoch'?)");
    assertBad(
        Map.of("path", "/d", "epoch", "x"),
        "epoch: 'x' (expected: a whole number from 0 to 2147483647)");
    assertBad(
        Map.of("path", "/d", "shuffleBuffer", "99999999999"),
        "shuffleBuffer: '99999999999' (expected: a whole number from 1 to 2147483647)");
    assertBad(
        Map.of("path", "/d", "shape.x", "0,2"),
        "shape.x: '0,2' (expected: dimensions > 0 "
            + "separated by commas, e.g. 3,32,32, of at most 2147483647 values in all)");
    assertBad(
        Map.of("path", "/d", "shape.x", "2", "SHAPE.X", "2"),
        "given twice in different case (expected: once; option names ignore case)");
    assertBad(Map.of("path", "/d", "batchSize", "1", "BATCHSIZE", "2"), "batchSize: given twice");
    assertBad(
        Map.of("paths", "not json"),
        "paths: 'not json' (expected: a JSON array of paths, " + "as load(path, ...) sets it)");
  }

  private static void assertBad(Map<String, String> options, String message) {
    assertThatThrownBy(() -> SourceOptions.parse(options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void shouldVerifyChecksumsUnlessTurnedOff() {
    assertThat(SourceOptions.parse(Map.of("path", "/data")).verifyChecksums()).isTrue();
    assertThat(
            SourceOptions.parse(Map.of("path", "/data", "VerifyChecksums", "FALSE"))
                .verifyChecksums())
        .isFalse();
    assertThatThrownBy(() -> SourceOptions.parse(Map.of("path", "/data", "verifyChecksums", "no")))
        .hasMessage("verifyChecksums: 'no' (expected: true or false)");
  }
}
