package dev.stoker.loader.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.knuddels.jtokkit.api.Encoding;
import dev.stoker.loader.Batch;
import dev.stoker.loader.BatchLoadException;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.StreamedDataset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TokenRowsTest {
  /** Documents of lengths from 0 to over 3 rows, ids below 1000 (the end token is 1000). */
  private static List<long[]> documents(SplittableRandom random, int count, int length) {
    List<long[]> docs = new ArrayList<>();
    for (int d = 0; d < count; d++) {
      int n =
          switch (random.nextInt(5)) {
            case 0 -> 0;
            case 1 -> random.nextInt(1, 3 * length + 2);
            default -> random.nextInt(1, Math.max(2, length / 2));
          };
      long[] doc = new long[n];
      for (int i = 0; i < n; i++) {
        doc[i] = random.nextInt(1000);
      }
      docs.add(doc);
    }
    return docs;
  }

  private static TokenLayout randomLayout(SplittableRandom random, boolean packing) {
    int length = random.nextInt(1, 40);
    TokenLayout layout = packing ? TokenLayout.packed(length) : TokenLayout.padded(length);
    if (random.nextBoolean()) {
      layout = layout.withEodToken(1000);
    }
    layout = layout.withShiftLabels(random.nextBoolean());
    if (packing) {
      layout =
          layout
              .withBoundaries(TokenLayout.Boundaries.values()[random.nextInt(2)])
              .withLongDocuments(
                  random.nextInt(4) == 0
                      ? TokenLayout.LongDocuments.CUT
                      : TokenLayout.LongDocuments.CONTINUE);
    } else {
      layout =
          layout
              .withPadToken(random.nextInt(-1, 3))
              .withLongDocuments(
                  random.nextBoolean()
                      ? TokenLayout.LongDocuments.SPLIT
                      : TokenLayout.LongDocuments.TRUNCATE);
    }
    return layout;
  }

  /** Every row of one epoch, through a loader of {@code workers} workers, no row dropped. */
  static List<PackingReference.Row> rows(StreamedDataset rows, int workers, int batchSize) {
    List<PackingReference.Row> out = new ArrayList<>();
    LoaderOptions.Builder options =
        LoaderOptions.builder().batchSize(batchSize).numWorkers(workers).dropLast(false);
    try (DataLoader loader = DataLoader.builder(rows).options(options.build()).build()) {
      for (Batch batch : loader.epoch(0)) {
        try (batch) {
          out.addAll(rowsOf(batch));
        }
      }
    }
    return out;
  }

  static List<PackingReference.Row> rowsOf(Batch batch) {
    List<PackingReference.Row> out = new ArrayList<>();
    boolean wide = batch.schema().field(0).dtype() == DType.INT64;
    boolean labels = batch.schema().size() == 4;
    int length = batch.schema().field(0).elements();
    int marks = batch.schema().field(2).elements();
    for (int r = 0; r < batch.size(); r++) {
      long[] ids = new long[length];
      int[] positions = new int[length];
      int[] mark = new int[marks];
      long[] label = labels ? new long[length] : null;
      for (int i = 0; i < length; i++) {
        ids[i] = wide ? batch.getLong(0, r, i) : batch.getInt(0, r, i);
        positions[i] = batch.getInt(1, r, i);
        if (labels) {
          label[i] = wide ? batch.getLong(3, r, i) : batch.getInt(3, r, i);
        }
      }
      for (int i = 0; i < marks; i++) {
        mark[i] = batch.getInt(2, r, i);
      }
      out.add(new PackingReference.Row(ids, positions, mark, label));
    }
    return out;
  }

  @Test
  void shouldPackEveryTokenOnceWithExactPositionsDocumentsAndLabels() {
    SplittableRandom random = new SplittableRandom(7);
    for (int trial = 0; trial < 60; trial++) {
      TokenLayout layout = randomLayout(random, true);
      List<long[]> docs = documents(random, random.nextInt(0, 60), layout.length());
      DocumentStream stream = DocumentStream.ids(docs, random.nextInt(1, 9));
      TokenRows rows = TokenRows.of(stream, "tokens", layout);
      List<PackingReference.Row> expected = PackingReference.packed(docs, layout, 0, -1);
      assertThat(rows(rows, trial % 3, random.nextInt(1, 5)))
          .as("trial %d: %s", trial, layout)
          .isEqualTo(expected);
      long streamTokens = 0;
      for (long[] doc : docs) {
        streamTokens += PackingReference.streamed(doc, layout).length;
      }
      TokenCounts counts = rows.counts();
      assertThat(counts.rows()).isEqualTo(expected.size());
      assertThat(counts.tokens()).isEqualTo(expected.size() * (long) layout.length());
      assertThat(counts.tokens() + counts.tailTokens()).isEqualTo(streamTokens);
      assertThat(counts.documents()).isEqualTo(docs.size());
      assertThat(counts.paddingFraction()).isZero();
    }
  }

  @Test
  void shouldGiveEveryRankAnEqualSpanEveryTokenInOneRowOnOneRank() {
    SplittableRandom random = new SplittableRandom(11);
    for (int trial = 0; trial < 40; trial++) {
      TokenLayout layout =
          randomLayout(random, true).withLongDocuments(TokenLayout.LongDocuments.CONTINUE);
      List<long[]> docs = documents(random, random.nextInt(5, 80), layout.length());
      long total = 0;
      for (long[] doc : docs) {
        total += layout.streamTokens(doc.length);
      }
      int world = random.nextInt(1, 7);
      int batch = random.nextInt(1, 4);
      long step = (long) world * batch * layout.length();
      long perRank = total / step * batch * layout.length();
      List<PackingReference.Row> all = new ArrayList<>();
      for (int rank = 0; rank < world; rank++) {
        TokenRows span =
            TokenRows.of(DocumentStream.ids(docs, 4), "tokens", layout)
                .span(rank * perRank, perRank);
        assertThat(span.rowCount()).isEqualTo(perRank / layout.length());
        List<PackingReference.Row> mine = rows(span, rank % 2, batch);
        assertThat(mine).hasSize((int) (perRank / layout.length()));
        all.addAll(mine);
      }
      // The ranks' rows in rank order are the one stream's rows, cut at the same tokens.
      assertThat(all)
          .as("trial %d: %s on %d ranks", trial, layout, world)
          .isEqualTo(PackingReference.packed(docs, layout, 0, world * perRank));
    }
  }

  @Test
  void shouldResumeInTheMiddleOfADocumentExactlyWhereTheSpanSays() {
    SplittableRandom random = new SplittableRandom(5);
    for (int trial = 0; trial < 30; trial++) {
      TokenLayout layout =
          TokenLayout.packed(random.nextInt(2, 30)).withShiftLabels(true).withEodToken(1000);
      List<long[]> docs = documents(random, 40, layout.length());
      List<PackingReference.Row> whole =
          rows(TokenRows.of(DocumentStream.ids(docs, 3), "tokens", layout), 0, 1);
      int done = random.nextInt(0, whole.size() + 1);
      TokenRows rest =
          TokenRows.of(DocumentStream.ids(docs, 3), "tokens", layout)
              .span((long) done * layout.length(), (long) (whole.size() - done) * layout.length());
      assertThat(rows(rest, 1, 2)).isEqualTo(whole.subList(done, whole.size()));
    }
  }

  @Test
  void shouldPackPiecesOfTheStreamPassingOverWhatLiesBetween() {
    SplittableRandom random = new SplittableRandom(13);
    for (int trial = 0; trial < 40; trial++) {
      TokenLayout layout =
          TokenLayout.packed(random.nextInt(1, 20))
              .withShiftLabels(random.nextBoolean())
              .withEodToken(random.nextBoolean() ? 1000 : -1);
      List<long[]> docs = documents(random, 60, layout.length());
      long total = 0;
      for (long[] doc : docs) {
        total += layout.streamTokens(doc.length);
      }
      int count = random.nextInt(0, 5);
      long[] skips = new long[count];
      long[] takes = new long[count];
      List<PackingReference.Row> expected = new ArrayList<>();
      long at = 0;
      for (int p = 0; p < count; p++) {
        skips[p] = random.nextLong(0, Math.max(1, (total - at) / 4 + 1));
        long rows = random.nextLong(0, (total - at - skips[p]) / layout.length() / 2 + 1);
        takes[p] = rows * layout.length();
        expected.addAll(PackingReference.packed(docs, layout, at + skips[p], takes[p]));
        at += skips[p] + takes[p];
      }
      TokenRows rows =
          TokenRows.of(DocumentStream.ids(docs, 3), "tokens", layout).span(skips, takes);
      assertThat(rows.rowCount()).isEqualTo(expected.size());
      assertThat(rows(rows, trial % 2, 2))
          .as("trial %d: skips %s takes %s", trial, Arrays.toString(skips), Arrays.toString(takes))
          .isEqualTo(expected);
    }
  }

  @Test
  void shouldPackTheResumedPiecesInTheResumedEpochOnly() {
    List<long[]> docs = documents(new SplittableRandom(2), 30, 8);
    TokenLayout layout = TokenLayout.packed(8);
    TokenRows rows =
        TokenRows.of(DocumentStream.ids(docs, 3), "tokens", layout)
            .span(0, 16)
            .resuming(1, new long[] {8}, new long[] {8});
    assertThat(rows.rowCount(0)).isEqualTo(2);
    assertThat(rows.rowCount(1)).isEqualTo(1);
    assertThat(rows.rowCount(2)).isEqualTo(2);
    assertThat(rows(rows, 0, 1)).isEqualTo(PackingReference.packed(docs, layout, 0, 16));
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void shouldPadOneDocumentPerRowTruncatedOrSplit(boolean split) {
    SplittableRandom random = new SplittableRandom(split ? 3 : 4);
    for (int trial = 0; trial < 40; trial++) {
      TokenLayout layout =
          randomLayout(random, false)
              .withLongDocuments(
                  split ? TokenLayout.LongDocuments.SPLIT : TokenLayout.LongDocuments.TRUNCATE);
      List<long[]> docs = documents(random, random.nextInt(0, 40), layout.length());
      TokenRows rows = TokenRows.of(DocumentStream.ids(docs, 5), "tokens", layout);
      assertThat(rows.rowCount()).isEqualTo(split ? StreamedDataset.UNKNOWN_ROWS : docs.size());
      List<PackingReference.Row> expected = PackingReference.padded(docs, layout);
      assertThat(rows(rows, trial % 2, 3)).as("%s", layout).isEqualTo(expected);
      long padding = 0;
      for (PackingReference.Row row : expected) {
        padding += Arrays.stream(row.marks()).filter(m -> m == 0).count();
      }
      TokenCounts counts = rows.counts();
      assertThat(counts.paddingTokens()).isEqualTo(padding);
      assertThat(counts.paddingFraction())
          .isEqualTo(
              expected.isEmpty() ? 0 : (double) padding / (expected.size() * layout.length()));
    }
  }

  /**
   * Rows of 4,096 tokens make chunks of 8 rows at most, whose buffers later chunks reuse without
   * clearing: a value not written again would show up as the last chunk's.
   */
  @Test
  void shouldWriteEveryValueOfEveryRowWhenChunksReuseTheirBuffers() {
    SplittableRandom random = new SplittableRandom(11);
    for (int trial = 0; trial < 6; trial++) {
      TokenLayout drawn = randomLayout(random, trial % 3 != 2);
      TokenLayout layout =
          trial % 3 == 2
              ? TokenLayout.padded(4096)
                  .withPadToken(-1)
                  .withShiftLabels(true)
                  .withLongDocuments(TokenLayout.LongDocuments.SPLIT)
              : TokenLayout.packed(4096)
                  .withEodToken(1000)
                  .withShiftLabels(trial % 2 == 0)
                  .withBoundaries(drawn.boundaries())
                  .withLongDocuments(drawn.longDocuments());
      List<long[]> docs = documents(random, trial % 3 == 2 ? 300 : 2500, 1024);
      TokenRows rows = TokenRows.of(DocumentStream.ids(docs, 7), "tokens", layout);
      List<PackingReference.Row> expected =
          trial % 3 == 2
              ? PackingReference.padded(docs, layout)
              : PackingReference.packed(docs, layout, 0, -1);
      assertThat(expected.size()).as("rows for several chunks").isGreaterThan(3 * 8);
      assertThat(rows(rows, trial % 2, 8)).as("trial %d: %s", trial, layout).isEqualTo(expected);
    }
  }

  /** Positions go on past the first 64 Ki tokens of a document, whichever way they are written. */
  @Test
  void shouldGiveExactPositionsToDocumentsLongerThan64KiTokens() {
    SplittableRandom random = new SplittableRandom(13);
    List<long[]> docs = new ArrayList<>();
    for (int n : new int[] {10, (1 << 16) - 3, 5, 70_000, 1}) {
      docs.add(random.longs(n, 0, 1000).toArray());
    }
    TokenLayout layout = TokenLayout.packed(1000).withEodToken(1000).withShiftLabels(true);
    List<PackingReference.Row> packed =
        rows(TokenRows.of(DocumentStream.ids(docs, 3), "tokens", layout), 0, 8);

    assertThat(packed).isEqualTo(PackingReference.packed(docs, layout, 0, -1));
    assertThat(packed)
        .as("a row that holds position 69,000")
        .anyMatch(row -> Arrays.stream(row.positions()).anyMatch(p -> p == 69_000));
  }

  @Test
  void shouldCarryInt64IdsAsInt64() {
    List<long[]> docs = List.of(new long[] {1L << 40, 2, 3}, new long[] {-5, 1L << 33});
    TokenLayout layout = TokenLayout.packed(2).withShiftLabels(true);
    TokenRows rows = TokenRows.of(new DocumentStream(docs, DType.INT64, 1), "tokens", layout);
    assertThat(rows.schema().field(0).dtype()).isEqualTo(DType.INT64);
    assertThat(rows.schema().field(3).dtype()).isEqualTo(DType.INT64);
    assertThat(rows(rows, 0, 2)).isEqualTo(PackingReference.packed(docs, layout, 0, -1));
  }

  @Test
  void shouldTokenizeTextAsTheTokenizerItselfDoesAndPackItAsTheIdsWouldBe() {
    List<String> texts =
        List.of(
            "Hello world",
            "",
            "A fortune: you will write many tests. Ünïcödé and emoji \uD83D\uDE00 too.",
            "The quick brown fox jumps over the lazy dog. ".repeat(20));
    Encoding gpt2 = Tokenizers.encoding("r50k_base");
    assertThat(Tokenizers.encode(gpt2, "Hello world")).containsExactly(15496, 995);
    List<long[]> ids = new ArrayList<>();
    for (String text : texts) {
      ids.add(Arrays.stream(gpt2.encodeOrdinary(text).toArray()).asLongStream().toArray());
    }
    TokenLayout layout = TokenLayout.packed(16).withEodToken(50256).withShiftLabels(true);
    List<PackingReference.Row> fromText =
        rows(
            TokenRows.of(
                new DocumentStream(texts, DType.UINT8, 2),
                "tokens",
                layout.withTokenizer("r50k_base")),
            2,
            4);
    assertThat(fromText)
        .isEqualTo(rows(TokenRows.of(DocumentStream.ids(ids, 3), "tokens", layout), 0, 4))
        .isEqualTo(PackingReference.packed(ids, layout, 0, -1));
    // on three threads at once, the same rows; a null text still names its document
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      many.add(texts.get(i % texts.size()) + " #" + i);
    }
    TokenLayout fromTexts = layout.withTokenizer("r50k_base");
    assertThat(
            rows(
                TokenRows.of(new DocumentStream(many, DType.UINT8, 64), "tokens", fromTexts)
                    .tokenizerThreads(3),
                2,
                4))
        .isEqualTo(
            rows(
                TokenRows.of(new DocumentStream(many, DType.UINT8, 64), "tokens", fromTexts),
                0,
                4));
    List<String> withNull = new ArrayList<>(many);
    withNull.set(150, null);
    assertThatThrownBy(
            () ->
                rows(
                    TokenRows.of(new DocumentStream(withNull, DType.UINT8, 64), "tokens", fromTexts)
                        .tokenizerThreads(3),
                    1,
                    4))
        .hasMessageContaining("document 150 of field 'tokens' is null");
    assertThat(Thread.getAllStackTraces().keySet())
        .as("the tokenizer's threads end with their stream")
        .noneMatch(t -> t.isAlive() && t.getName().startsWith("stoker-tokenizer-"));
  }

  @Test
  void shouldFailANullAnOutOfVocabularyIdAndALongDocumentNamingTheDocument() {
    List<long[]> docs = new ArrayList<>(List.of(new long[] {1, 2}, new long[] {3}));
    docs.add(null);
    assertThatThrownBy(
            () ->
                rows(
                    TokenRows.of(DocumentStream.ids(docs, 2), "tokens", TokenLayout.packed(2)),
                    1,
                    1))
        .isInstanceOf(BatchLoadException.class)
        .hasMessageContaining("document 2 of field 'tokens' is null")
        .hasMessageContaining("filter out nulls");
    List<long[]> outOfVocabulary = List.of(new long[] {1, 2}, new long[] {3, 70000, 4});
    assertThatThrownBy(
            () ->
                rows(
                    TokenRows.of(
                        DocumentStream.ids(outOfVocabulary, 2),
                        "tokens",
                        TokenLayout.packed(2).withChecks(50257, -1)),
                    0,
                    1))
        .hasMessageContaining("document 1 of field 'tokens' holds id 70000 at token 1")
        .hasMessageContaining("vocabSize = 50257");
    assertThatThrownBy(
            () ->
                rows(
                    TokenRows.of(
                        DocumentStream.ids(List.of(new long[] {-1}), 2),
                        "tokens",
                        TokenLayout.packed(1).withChecks(10, -1)),
                    0,
                    1))
        .hasMessageContaining("holds id -1 at token 0");
    assertThatThrownBy(
            () ->
                rows(
                    TokenRows.of(
                        DocumentStream.ids(outOfVocabulary, 2),
                        "tokens",
                        TokenLayout.packed(2).withChecks(-1, 2)),
                    0,
                    1))
        .hasMessageContaining("document 1 of field 'tokens' has 3 tokens")
        .hasMessageContaining("maxDocumentTokens = 2");
  }

  @Test
  void shouldRefuseAFieldThatHoldsNoDocumentsAndASpanOfRowsThatTokensDoNotCount() {
    DocumentStream stream = DocumentStream.ids(List.of(), 1);
    assertThatThrownBy(() -> TokenRows.of(stream, "other", TokenLayout.packed(4)))
        .hasMessageContaining("field 'other' int32")
        .hasMessageContaining("array<int>");
    assertThatThrownBy(() -> TokenRows.of(stream, "nope", TokenLayout.packed(4)))
        .hasMessageContaining("no field 'nope'");
    assertThatThrownBy(
            () -> TokenRows.of(stream, "tokens", TokenLayout.packed(4).withTokenizer("r50k_base")))
        .hasMessageContaining("text, or no tokenizer");
    assertThatThrownBy(() -> TokenRows.of(stream, "tokens", TokenLayout.padded(4)).span(0, 4))
        .hasMessageContaining("pack with longDocuments=continue");
    assertThatThrownBy(() -> TokenRows.of(stream, "tokens", TokenLayout.packed(4)).span(0, 6))
        .hasMessageContaining("a multiple of the row length 4");
  }

  @Test
  void shouldFailASpanTheDocumentsDoNotFill() {
    TokenRows rows =
        TokenRows.of(
                DocumentStream.ids(List.of(new long[] {1, 2, 3}), 1),
                "tokens",
                TokenLayout.packed(2))
            .span(0, 4);
    assertThatThrownBy(() -> rows(rows, 0, 1))
        .hasMessageContaining(
            "the documents ended after 3 of the 4 tokens that piece 0 of this rank's rows takes");
  }

  @Test
  void shouldParseTheOptionsAndNameEveryBadOne() {
    Map<String, String> given = new HashMap<>();
    given.put("pack", "2048");
    given.put("eodToken", "50256");
    given.put("shiftLabels", "true");
    given.put("documentBoundaries", "cuSeqlens");
    given.put("tokenizer", "R50K_BASE");
    TokenLayout layout = TokenOptions.parse(given::get);
    assertThat(layout)
        .isEqualTo(
            TokenLayout.packed(2048)
                .withEodToken(50256)
                .withShiftLabels(true)
                .withBoundaries(TokenLayout.Boundaries.CU_SEQLENS)
                .withTokenizer("r50k_base"));
    assertThat(layout.outputSchema(DType.INT32).toString()).contains("cu_seqlens");
    assertThat(TokenOptions.parse(k -> null)).isNull();
    assertBad(Map.of("pack", "0"), "option pack='0' (expected: a whole number from 1 to");
    assertBad(Map.of("pack", "x"), "option pack='x'");
    assertBad(Map.of("pack", "4", "pad", "4"), "both pack=4 and pad=4");
    assertBad(Map.of("eodToken", "3"), "eodToken without pack or pad");
    assertBad(Map.of("pack", "4", "longDocuments", "split"), "longDocuments=split with pack");
    assertBad(Map.of("pad", "4", "documentBoundaries", "cuSeqlens"), "with pack only");
    assertBad(Map.of("pad", "4", "shiftLabels", "yes"), "option shiftLabels='yes'");
    assertBad(Map.of("pack", "4", "tokenizer", "bert"), "tokenizer 'bert' (expected one of:");
    assertBad(
        Map.of("pack", "4", "eodToken", "9", "vocabSize", "9"), "eodToken: 9 (expected: an id");
    assertBad(
        Map.of("pack", "4", "documentBoundaries", "starts"),
        "(expected one of: documentIds, cuSeqlens)");
  }

  private static void assertBad(Map<String, String> options, String message) {
    assertThatThrownBy(() -> TokenOptions.parse(options::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
