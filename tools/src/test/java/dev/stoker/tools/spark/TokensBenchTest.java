package dev.stoker.tools.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tokens benchmark's documents have a corpus's long tail and are reused once complete;
 * format("stoker") packs them into the most full batches every rank can have; the PyTorch side
 * (which needs torch, numpy and pyarrow: skipped without them) reads the same files, and the whole
 * run writes valid JSON. No timing.
 */
class TokensBenchTest {
  private static final int DOCUMENTS = 2000;

  @TempDir Path dir;

  @Test
  void shouldDrawDocumentLengthsWithALongTailAndIdsOfTheVocabulary() {
    int[] lengths = IntStream.range(0, 20_000).map(i -> TokenData.length(i, 1)).sorted().toArray();
    assertThat(lengths[lengths.length / 2]).isBetween(185, 215);
    assertThat(lengths[0]).isPositive();
    assertThat(lengths[lengths.length - 1]).isBetween(8192, TokenData.MAX_LENGTH);
    long longer = Arrays.stream(lengths).filter(n -> n > 2048).count();
    assertThat(longer).isBetween(300L, 800L); // about one in 40
    assertThat(TokenData.tokens(20_000, 1)).isBetween(7_600_000L, 8_800_000L);
    int[] document = TokenData.document(7, 1);
    assertThat(document).hasSize(TokenData.length(7, 1)).isEqualTo(TokenData.document(7, 1));
    assertThat(IntStream.range(0, 300).flatMap(i -> Arrays.stream(TokenData.document(i, 1))))
        .allSatisfy(id -> assertThat(id).isBetween(0, TokenData.VOCABULARY - 1));
  }

  @Test
  void shouldReuseCompleteDocumentsAndWriteIncompleteOnesAnew() throws IOException {
    TokenData.Written first = TokenData.write(dir, DOCUMENTS, 1);
    assertThat(first.reused()).isFalse();
    assertThat(first.files()).hasSize(2);
    assertThat(first.tokens()).isEqualTo(TokenData.tokens(DOCUMENTS, 1));
    TokenData.Written again = TokenData.write(dir, DOCUMENTS, 1);
    assertThat(again.reused()).isTrue();
    assertThat(again.files()).isEqualTo(first.files());
    assertThat(again.tokens()).isEqualTo(first.tokens());

    Files.write(first.files().get(1), new byte[] {1, 2, 3});
    TokenData.Written rewritten = TokenData.write(dir, DOCUMENTS, 1);
    assertThat(rewritten.reused()).isFalse();
    assertThat(Files.size(rewritten.files().get(1))).isGreaterThan(3);
    assertThat(TokenData.write(dir, DOCUMENTS, 1).reused()).isTrue();

    Files.delete(first.dir().resolve(TokenData.MANIFEST));
    assertThat(TokenData.write(dir, DOCUMENTS, 1).reused()).isFalse();
    assertThat(TokenData.write(dir, DOCUMENTS + 1, 1).dir()).isNotEqualTo(first.dir());
  }

  @Test
  void shouldPackEveryFullBatchOfTheDocumentsThroughStoker() {
    TokenData.Written data = TokenData.write(dir, DOCUMENTS, 1);
    TokensBench.Config config = config(1, "unused");
    SparkSession spark = SourceBench.session(2, TokensBench.WORKLOAD);
    try {
      TokensBench.Epoch epoch = TokensBench.stokerEpoch(spark, data, config, 0);
      assertThat(epoch.rows()).isPositive().isEqualTo(config.stokerRows(data.tokens()));
      assertThat(data.tokens() - epoch.rows() * 2048).isBetween(0L, 2L * 8 * 2048);
      assertThat(epoch.firstBatchSeconds()).isPositive().isLessThanOrEqualTo(epoch.seconds());
    } finally {
      spark.stop();
    }
  }

  @Test
  void shouldRunThePeerOverTheSameFilesOnTwoRanks() {
    String python = TokensBench.defaultPython();
    String missing = TokensBench.missingPeer(python);
    assumeTrue(missing == null, "skipped: " + missing);
    TokenData.Written data = TokenData.write(dir, DOCUMENTS, 1);
    Map<Integer, TokensPeer.Epoch> epochs =
        TokensPeer.in(dir, python).run(data.dir(), 2048, 8, 2, List.of(0, 2), 0);
    assertThat(epochs).containsOnlyKeys(0, 2);
    for (TokensPeer.Epoch epoch : epochs.values()) {
      assertThat(epoch.tokens() % (8 * 2048)).isZero();
      // each rank drops less than a batch and a row per worker
      assertThat(data.tokens() - epoch.tokens()).isBetween(0L, 2L * 2 * 9 * 2048);
      assertThat(epoch.seconds()).isPositive();
      assertThat(epoch.firstBatchSeconds()).isPositive().isLessThanOrEqualTo(epoch.seconds());
    }
  }

  @Test
  void shouldRunBothSidesEndToEndAndWriteValidJson() throws IOException {
    String python = TokensBench.defaultPython();
    String missing = TokensBench.missingPeer(python);
    assumeTrue(missing == null, "skipped: " + missing);
    StringWriter progress = new StringWriter();
    TokensBenchResult result = TokensBench.run(config(1, python), new PrintWriter(progress, true));
    StringWriter report = new StringWriter();
    result.print(new PrintWriter(report, true));

    JsonNode json = new ObjectMapper().readTree(result.json());
    assertThat(json.get("workload").asText()).isEqualTo("tokens");
    assertThat(json.get("documents").asInt()).isEqualTo(DOCUMENTS);
    assertThat(json.get("tokens").asLong()).isEqualTo(TokenData.tokens(DOCUMENTS, 1));
    assertThat(json.get("stoker_tokens_per_s").asDouble()).isPositive();
    assertThat(json.get("peer_tokens_per_s").asDouble()).isPositive();
    assertThat(json.get("ratio").asDouble()).isPositive();
    assertThat(json.get("padding_fraction").asDouble()).isBetween(0.0, 0.05);
    assertThat(json.get("peer_padding_fraction").asDouble()).isBetween(0.0, 0.2);
    assertThat(json.get("first_batch_s").asDouble()).isPositive();
    assertThat(json.get("peer_first_batch_s").asDouble()).isPositive();
    assertThat(json.get("peer_workers").asInt()).isIn(0, 1);
    assertThat(json.get("per_worker").get("peer").fieldNames()).toIterable().contains("0", "1");
    assertThat(json.get("runs").get("stoker")).hasSize(1);
    assertThat(progress.toString()).contains("wrote 2,000 documents", "warm-up", "round 1/1");
    assertThat(report.toString()).contains("PyTorch's best");
  }

  private TokensBench.Config config(int repeats, String python) {
    return new TokensBench.Config(DOCUMENTS, 2, 8, 2048, repeats, null, List.of(0, 1), dir, python);
  }
}
