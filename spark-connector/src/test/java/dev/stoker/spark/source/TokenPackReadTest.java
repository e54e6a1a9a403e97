package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.tokens.Tokenizers;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.Tokenize;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * format("stoker") with option pack or pad over documents of token ids: 700 documents of 0 to 120
 * tokens (a few of up to 400), in 3 files of several row groups, each token {@code id * 1000 + i}
 * so that a row shows which document and place each token is. On any number of ranks every rank
 * gets the same number of full batches, every token is in one row on one rank or in the tail no
 * rank packs, positions and document ids are exact, and the ranks' rows in rank order are one
 * stream, the same whatever the number of ranks.
 */
class TokenPackReadTest {
  private static final int DOCUMENTS = 700;
  private static final int LENGTH = 32;
  private static final int BATCH = 4;
  private static final int EOD = 999_999_999;

  @TempDir static Path dir;
  private static SparkSession spark;
  private static String table;
  private static String twoLists;

  /** Each document's length, by id. */
  private static final Map<Long, Integer> LENGTHS = new HashMap<>();

  @BeforeAll
  static void startSpark() {
    spark = SparkClusters.local(2);
    table = dir.resolve("documents").toString();
    String length =
        "case when id % 50 = 7 then cast(pmod(hash(id), 400) as int)"
            + " when id % 10 = 0 then 0 else cast(pmod(hash(id, 1), 121) as int) end";
    spark
        .range(0, DOCUMENTS, 1, 3)
        .selectExpr("id", length + " as n")
        .selectExpr(
            "id",
            "transform(filter(sequence(0, n), i -> i < n), i -> cast(id * 1000 + i as int))"
                + " as tokens")
        .write()
        .mode("overwrite")
        .option("parquet.block.size", "16384")
        .option("parquet.page.size", "4096")
        .parquet(table);
    for (Row row : spark.read().parquet(table).collectAsList()) {
      LENGTHS.put(row.getLong(0), row.getList(1).size());
    }
    twoLists = dir.resolve("two").toString();
    spark
        .range(0, 40, 1, 1)
        .selectExpr("array(cast(id as int)) as a", "array(id) as b")
        .write()
        .mode("overwrite")
        .parquet(twoLists);
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  @AfterEach
  void leavesNothingOpen() throws InterruptedException {
    SourceLeaks.assertNothingOpen();
  }

  private static DataFrameReader packed(int worldSize, boolean eod) {
    DataFrameReader reader =
        spark
            .read()
            .format("stoker")
            .option("pack", LENGTH)
            .option("shiftLabels", true)
            .option("batchSize", BATCH)
            .option("worldSize", worldSize)
            .option("shuffle", true)
            .option("seed", 7)
            .option("numWorkers", 2)
            .option("shuffleBuffer", 50);
    return eod ? reader.option("eodToken", EOD) : reader;
  }

  /** One packed row: its rank, tokens, positions, document ids and labels. */
  private record Packed(int rank, int[] ids, int[] positions, int[] documents, int[] labels) {}

  private static List<Packed> read(DataFrameReader reader) {
    List<Packed> rows = new ArrayList<>();
    for (Row row :
        reader
            .load(table)
            .selectExpr(
                "spark_partition_id() as rank",
                "input_ids",
                "position_ids",
                "document_ids",
                "labels")
            .collectAsList()) {
      rows.add(new Packed(row.getInt(0), ints(row, 1), ints(row, 2), ints(row, 3), ints(row, 4)));
    }
    return rows;
  }

  private static int[] ints(Row row, int column) {
    return row.<Integer>getList(column).stream().mapToInt(Integer::intValue).toArray();
  }

  private static long streamTokens(boolean eod) {
    long tokens = 0;
    for (int n : LENGTHS.values()) {
      tokens += n + (eod ? 1 : 0);
    }
    return tokens;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void shouldPackEveryTokenOnceInEqualBatchesWithExactPositionsAndDocuments(int worldSize) {
    boolean eod = worldSize != 2;
    List<Packed> rows = read(packed(worldSize, eod));
    long total = streamTokens(eod);
    long step = (long) worldSize * BATCH * LENGTH;
    long perRank = total / step * BATCH * LENGTH;
    int[] perRankRows = new int[worldSize];
    List<Integer> stream = new ArrayList<>();
    List<Integer> positions = new ArrayList<>();
    int lastRank = 0;
    for (Packed row : rows) {
      assertThat(row.rank()).isGreaterThanOrEqualTo(lastRank);
      lastRank = row.rank();
      perRankRows[row.rank()]++;
      checkRow(row);
      for (int i = 0; i < LENGTH; i++) {
        stream.add(row.ids()[i]);
        positions.add(row.positions()[i]);
      }
    }
    for (int rank = 0; rank < worldSize; rank++) {
      assertThat(perRankRows[rank]).as("rank %d", rank).isEqualTo((int) (perRank / LENGTH));
    }
    // Every token at most once, each document's tokens in order and together: one stream.
    Set<Integer> seen = new HashSet<>();
    for (int t = 0; t < stream.size(); t++) {
      int id = stream.get(t);
      if (id == EOD) {
        if (positions.get(t) > 0) { // else the end token is an empty document's only token
          int before = stream.get(t - 1);
          assertThat(before % 1000 + 1)
              .as("an end token follows its document's last token")
              .isEqualTo(LENGTHS.get((long) before / 1000))
              .isEqualTo(positions.get(t));
        }
        continue;
      }
      assertThat(seen.add(id)).as("token %d once", id).isTrue();
      if (t > 0 && id % 1000 != 0) {
        assertThat(stream.get(t - 1)).as("token %d follows its predecessor", id).isEqualTo(id - 1);
      }
    }
    // The tokens no rank packs are fewer than one step: the tail.
    assertThat(total - stream.size()).isBetween(0L, step - 1);
  }

  /** Positions, document ids and labels as the row's tokens say. */
  private static void checkRow(Packed row) {
    int document = 0;
    for (int i = 0; i < LENGTH; i++) {
      int id = row.ids()[i];
      if (id != EOD) {
        assertThat(row.positions()[i]).isEqualTo(id % 1000);
      }
      if (i > 0 && row.positions()[i] == 0) {
        document++;
      }
      if (i > 0 && row.positions()[i] != 0) {
        assertThat(row.positions()[i]).isEqualTo(row.positions()[i - 1] + 1);
      }
      assertThat(row.documents()[i]).as("document id at %d", i).isEqualTo(document);
      if (i + 1 < LENGTH && row.positions()[i + 1] != 0) {
        assertThat(row.labels()[i]).isEqualTo(row.ids()[i + 1]);
      } else if (i + 1 < LENGTH) {
        assertThat(row.labels()[i]).isEqualTo(-100);
      }
    }
  }

  @Test
  void shouldResumeInTheMiddleOfDocumentsOnAsManyRanksOrAnother() {
    Dataset<Row> whole = packed(2, true).load(table);
    List<Packed> all = read(packed(2, true));
    StokerScan scan = Tables.scan(whole);
    int consumed = 3;
    LoaderState state = scan.stateAfter(consumed);
    int perRank = all.size() / 2;
    // As many ranks: each rank's rows after its first three batches, the same rows.
    List<Packed> rest = read(packed(2, true).option("resumeFrom", state.toString()));
    List<Packed> expected = new ArrayList<>();
    for (int rank = 0; rank < 2; rank++) {
      expected.addAll(all.subList(rank * perRank + consumed * BATCH, (rank + 1) * perRank));
    }
    assertThat(ids(rest)).isEqualTo(ids(expected));
    assertThat(rest.get(0).positions()).isEqualTo(expected.get(0).positions());
    // Three ranks: every token the two ranks had not packed yet, once, in equal batches.
    List<Packed> onThree = read(packed(3, true).option("resumeFrom", state.toString()));
    int[] rows = new int[3];
    onThree.forEach(r -> rows[r.rank()]++);
    assertThat(rows[1]).isEqualTo(rows[0]).isEqualTo(rows[2]).isPositive();
    List<Integer> before = new ArrayList<>();
    for (int rank = 0; rank < 2; rank++) {
      before.addAll(ids(all.subList(rank * perRank, rank * perRank + consumed * BATCH)));
    }
    List<Integer> tokens = new ArrayList<>(before);
    tokens.addAll(ids(onThree));
    List<Integer> real = tokens.stream().filter(id -> id != EOD).toList();
    assertThat(real).doesNotHaveDuplicates();
    for (Packed row : onThree) {
      checkRow(row);
    }
    assertThat(streamTokens(true) - tokens.size()).isBetween(0L, 3L * BATCH * LENGTH - 1);
  }

  @Test
  void shouldRestartAStoppedRunMidDocumentOnOneRankEveryTokenOnce() {
    TrainingResult<List<Integer>> stopped =
        runner(packed(2, true).load(table))
            .run(
                (rank, loader) -> {
                  List<Integer> ids = new ArrayList<>();
                  int step = 0;
                  for (Batch batch : loader.epoch(0)) {
                    try (batch) {
                      ids.addAll(batchIds(batch));
                    }
                    if (++step == 2) {
                      rank.commit();
                      break;
                    }
                  }
                  return ids;
                });
    LoaderState state = stopped.lastCommitted().orElseThrow();
    TrainingResult<List<List<Integer>>> restarted =
        runner(packed(1, true).option("resumeFrom", state.toString()).load(table))
            .run(
                (rank, loader) -> {
                  int first = rank.resumedFrom().orElseThrow().epoch();
                  return List.of(epochIds(loader, first), epochIds(loader, first + 1));
                });
    List<Integer> epoch0 = new ArrayList<>();
    stopped.results().forEach(epoch0::addAll);
    List<Integer> next = new ArrayList<>();
    for (List<List<Integer>> rank : restarted.results()) {
      epoch0.addAll(rank.get(0));
      next.addAll(rank.get(1));
    }
    assertThat(epoch0.stream().filter(id -> id != EOD).toList()).doesNotHaveDuplicates();
    assertThat(streamTokens(true) - epoch0.size()).isBetween(0L, 2L * BATCH * LENGTH - 1);
    assertThat(next.stream().filter(id -> id != EOD).toList()).doesNotHaveDuplicates();
    assertThat(streamTokens(true) - next.size()).isBetween(0L, BATCH * LENGTH - 1L);
  }

  private static StokerSpark runner(Dataset<Row> input) {
    return StokerSpark.on(input)
        .tensor("input_ids", DType.INT32, LENGTH)
        .tensor("position_ids", DType.INT32, LENGTH)
        .tensor("document_ids", DType.INT32, LENGTH)
        .tensor("labels", DType.INT32, LENGTH)
        .options(
            LoaderOptions.builder().batchSize(BATCH).shuffle(true).seed(7).numWorkers(2).build());
  }

  /** Every token id of epoch {@code epoch}'s batches, in order. */
  private static List<Integer> epochIds(DataLoader loader, int epoch) {
    List<Integer> ids = new ArrayList<>();
    for (Batch batch : loader.epoch(epoch)) {
      try (batch) {
        ids.addAll(batchIds(batch));
      }
    }
    return ids;
  }

  private static List<Integer> batchIds(Batch batch) {
    List<Integer> ids = new ArrayList<>();
    for (int r = 0; r < batch.size(); r++) {
      for (int i = 0; i < LENGTH; i++) {
        ids.add(batch.getInt(0, r, i));
      }
    }
    return ids;
  }

  private static List<Integer> ids(List<Packed> rows) {
    List<Integer> ids = new ArrayList<>();
    for (Packed row : rows) {
      for (int id : row.ids()) {
        ids.add(id);
      }
    }
    return ids;
  }

  @Test
  void shouldMakeOneStreamOnAnyNumberOfRanks() {
    List<Integer> one = new ArrayList<>();
    for (Packed row : read(packed(1, true))) {
      for (int id : row.ids()) {
        one.add(id);
      }
    }
    List<Integer> three = new ArrayList<>();
    for (Packed row : read(packed(3, true))) {
      for (int id : row.ids()) {
        three.add(id);
      }
    }
    assertThat(three.size()).isLessThanOrEqualTo(one.size());
    assertThat(three).isEqualTo(one.subList(0, three.size()));
  }

  @Test
  void shouldFeedARunsRanksTheReadsRowsAndAFreshOrderEveryEpoch() {
    Dataset<Row> input = packed(2, true).load(table);
    TrainingResult<List<List<Integer>>> result =
        StokerSpark.on(input)
            .tensor("input_ids", DType.INT32, LENGTH)
            .tensor("position_ids", DType.INT32, LENGTH)
            .tensor("document_ids", DType.INT32, LENGTH)
            .tensor("labels", DType.INT32, LENGTH)
            .options(
                LoaderOptions.builder()
                    .batchSize(BATCH)
                    .shuffle(true)
                    .seed(7)
                    .numWorkers(2)
                    .build())
            .option("epochs", "2")
            .worldSize(2)
            .run((rank, loader) -> List.of(epochIds(loader, 0), epochIds(loader, 1)));
    List<Integer> read = new ArrayList<>();
    for (Packed row : read(packed(2, true))) {
      for (int id : row.ids()) {
        read.add(id);
      }
    }
    List<Integer> epoch0 = new ArrayList<>();
    List<Integer> epoch1 = new ArrayList<>();
    for (List<List<Integer>> rank : result.results()) {
      assertThat(rank.get(0)).hasSameSizeAs(result.results().get(0).get(0));
      epoch0.addAll(rank.get(0));
      epoch1.addAll(rank.get(1));
    }
    assertThat(epoch0).as("the run's first epoch is the read's").isEqualTo(read);
    assertThat(epoch1).hasSameSizeAs(epoch0).isNotEqualTo(epoch0);
    assertThat(epoch1.stream().filter(id -> id != EOD).distinct().count())
        .isEqualTo(epoch1.stream().filter(id -> id != EOD).count());
  }

  @Test
  void shouldPadOneDocumentPerRowWithItsMask() {
    List<Row> rows =
        spark
            .read()
            .format("stoker")
            .option("pad", 64)
            .option("padToken", -1)
            .option("batchSize", 10)
            .option("worldSize", 2)
            .load(table)
            .selectExpr("spark_partition_id() as rank", "input_ids", "attention_mask")
            .collectAsList();
    assertThat(rows).hasSize(DOCUMENTS / 20 * 20);
    Set<Long> documents = new HashSet<>();
    for (Row row : rows) {
      int[] ids = ints(row, 1);
      int[] mask = ints(row, 2);
      int n = 0;
      while (n < 64 && mask[n] == 1) {
        n++;
      }
      for (int i = n; i < 64; i++) {
        assertThat(mask[i]).isZero();
        assertThat(ids[i]).isEqualTo(-1);
      }
      if (n > 0) {
        long document = ids[0] / 1000;
        assertThat(documents.add(document)).isTrue();
        assertThat(n).isEqualTo(Math.min(64, LENGTHS.get(document)));
      }
    }
  }

  @Test
  void shouldTokenizeTextOnTheFlyAsTheSqlFunctionDoes() {
    Tokenize.register(spark);
    String texts = dir.resolve("texts").toString();
    spark
        .range(0, 60, 1, 2)
        .selectExpr(
            "id",
            "concat('Fortune ', id, ': ', repeat('you will write many tests. ', cast(id % 7 as int)))"
                + " as text")
        .write()
        .mode("overwrite")
        .parquet(texts);
    String ids = dir.resolve("text-ids").toString();
    spark
        .read()
        .parquet(texts)
        .selectExpr("stoker_tokenize(text, 'r50k_base') as tokens")
        .write()
        .mode("overwrite")
        .parquet(ids);
    assertThat(
            spark.read().parquet(ids).selectExpr("tokens").collectAsList().stream()
                .anyMatch(r -> r.getList(0).equals(gpt2("Fortune 0: "))))
        .as("'Fortune 0: ' as the tokenizer encodes it")
        .isTrue();
    List<Row> fromText = padded(texts, "text", true);
    List<Row> fromIds = padded(ids, "tokens", false);
    assertThat(fromText).hasSize(60).containsExactlyInAnyOrderElementsOf(fromIds);
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("stoker")
                    .option("pack", 8)
                    .option("tokenizer", "r50k_base")
                    .load(texts)
                    .collectAsList())
        .hasMessageContaining("do not count the tokens of text");
  }

  private static List<Integer> gpt2(String text) {
    return Arrays.stream(Tokenizers.encode(Tokenizers.encoding("r50k_base"), text))
        .boxed()
        .toList();
  }

  private static List<Row> padded(String path, String column, boolean tokenize) {
    DataFrameReader reader =
        spark
            .read()
            .format("stoker")
            .option("pad", 24)
            .option("eodToken", 50256)
            .option("shiftLabels", true)
            .option("batchSize", 10)
            .option("documentColumn", column)
            .option("worldSize", 2);
    if (tokenize) {
      reader = reader.option("tokenizer", "r50k_base");
    }
    return reader.load(path).collectAsList();
  }

  @Test
  void shouldNameANullDocumentAndAnIdOutsideTheVocabulary() {
    String nulls = dir.resolve("nulls").toString();
    spark
        .range(0, 40, 1, 1)
        .selectExpr("case when id = 23 then null else array(cast(id as int), 2) end as tokens")
        .write()
        .mode("overwrite")
        .parquet(nulls);
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("stoker")
                    .option("pad", 4)
                    .option("batchSize", 2)
                    .load(nulls)
                    .collectAsList())
        .hasStackTraceContaining("'tokens'")
        .hasStackTraceContaining("null");
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("stoker")
                    .option("pack", 4)
                    .option("batchSize", 2)
                    .option("vocabSize", 30)
                    .load(table)
                    .collectAsList())
        .hasStackTraceContaining("of field 'tokens' holds id")
        .hasStackTraceContaining("vocabSize = 30");
  }

  @Test
  void shouldNameTheDocumentColumnsAndTheRemedies() {
    assertThatThrownBy(
            () -> spark.read().format("stoker").option("pack", 8).load(twoLists).schema())
        .hasMessageContaining("2 columns of type list of integers")
        .hasMessageContaining("documentColumn naming one");
    assertThat(
            spark
                .read()
                .format("stoker")
                .option("pad", 8)
                .option("documentColumn", "b")
                .load(twoLists)
                .schema()
                .simpleString())
        .isEqualTo(
            "struct<input_ids:array<bigint>,position_ids:array<int>,attention_mask:array<int>>");
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("stoker")
                    .option("pack", 4096)
                    .option("batchSize", 64)
                    .option("documentColumn", "a")
                    .load(twoLists)
                    .collectAsList())
        .hasMessageContaining("tokens per step, but")
        .hasMessageContaining("lower pack, batchSize or worldSize");
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("stoker")
                    .option("pack", 8)
                    .option("transforms", "decode(rgb)")
                    .load(table)
                    .schema())
        .hasMessageContaining("(expected: one of them");
    assertThatThrownBy(
            () -> spark.read().format("stoker").option("eodToken", 1).load(table).schema())
        .hasMessageContaining("eodToken without pack or pad");
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("stoker")
                    .option("pack", 8)
                    .option("longDocuments", "cut")
                    .load(table)
                    .collectAsList())
        .hasMessageContaining("expected: longDocuments=continue");
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("stoker")
                    .option("pad", 8)
                    .option("longDocuments", "split")
                    .load(table)
                    .collectAsList())
        .hasMessageContaining("expected: longDocuments=truncate");
  }
}
