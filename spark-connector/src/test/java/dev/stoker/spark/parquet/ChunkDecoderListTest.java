package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.memory.DirectAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Stoker's page decoder on variable-length lists of int32 made by hand: rows of any length (empty
 * ones too) across pages and across calls, rows passed over, dictionary ids, a null list or a null
 * value named by its row, and pages with a flipped bit decoded or refused naming the column.
 */
class ChunkDecoderListTest {
  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message m { "
              + "optional group tokens (LIST) { repeated group list { optional int32 element; } } }");
  private static final ColumnSpec TOKENS = ColumnSpec.variable("tokens", DType.INT32, 16);

  private DirectAllocator allocator;
  private ShuffleWindow window;

  @BeforeEach
  void allocate() {
    allocator = new DirectAllocator("test", 1 << 20);
    window = new ShuffleWindow(allocator, List.of(TOKENS), 8);
  }

  @AfterEach
  void free() {
    window.close();
    allocator.close();
  }

  private static DataPage page(int[] reps, int[] defs, int... values) {
    return Pages.v1(1, reps, 2, defs, Pages.ints(values), Encoding.PLAIN);
  }

  private static ChunkDecoder tokens(DictionaryPage dictionary, DataPage... pages)
      throws IOException {
    return new ChunkDecoder(
        TOKENS,
        SCHEMA.getColumnDescription(new String[] {"tokens", "list", "element"}),
        SCHEMA,
        Pages.reader(dictionary, List.of(pages)),
        "f",
        100);
  }

  private int[] row(int row) {
    ByteBuffer value = window.variableValue(0, row).slice().order(ByteOrder.nativeOrder());
    int[] ints = new int[value.remaining() / 4];
    value.asIntBuffer().get(ints);
    return ints;
  }

  @Test
  void shouldDecodeRowsOfAnyLengthAcrossPagesAndCalls() throws IOException {
    // Rows [5, 6, 7], [], [8, 9] (split between the pages), [10].
    ChunkDecoder decoder =
        tokens(
            null,
            page(new int[] {0, 1, 1, 0, 0}, new int[] {3, 3, 3, 1, 3}, 5, 6, 7, 8),
            page(new int[] {1, 0}, new int[] {3, 3}, 9, 10));

    decoder.read(1, null, 0);
    decoder.readVariable(2, window, 0, 0);
    decoder.readVariable(1, window, 0, 2);

    assertThat(row(0)).isEmpty();
    assertThat(row(1)).containsExactly(8, 9);
    assertThat(row(2)).containsExactly(10);
    assertThatThrownBy(() -> decoder.readVariable(1, window, 0, 3))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("the column chunk ended after 4 rows");
  }

  /**
   * Rows are assembled in the window's own area, which grows under a row being assembled (its first
   * size holds 16 bytes a row) and across pages; a row passed over is not written.
   */
  @Test
  void shouldAssembleLongRowsInPlaceAsTheWindowGrowsUnderThem() throws IOException {
    int[][] rows = {new int[150], new int[200], new int[0], new int[700], new int[3]};
    int next = 1;
    for (int[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        row[i] = next++;
      }
    }
    List<Integer> reps = new java.util.ArrayList<>();
    List<Integer> defs = new java.util.ArrayList<>();
    List<Integer> values = new java.util.ArrayList<>();
    for (int[] row : rows) {
      if (row.length == 0) {
        reps.add(0);
        defs.add(1);
      }
      for (int i = 0; i < row.length; i++) {
        reps.add(i == 0 ? 0 : 1);
        defs.add(3);
        values.add(row[i]);
      }
    }
    int split = 150 + 200 + 1 + 300; // the fourth row goes on in the second page
    ChunkDecoder decoder =
        tokens(
            null,
            page(ints(reps.subList(0, split)), ints(defs.subList(0, split)), ints(values, 0, 650)),
            page(
                ints(reps.subList(split, reps.size())),
                ints(defs.subList(split, defs.size())),
                ints(values, 650, values.size())));

    decoder.read(1, null, 0);
    decoder.readVariable(2, window, 0, 0);
    decoder.readVariable(2, window, 0, 2);

    assertThat(row(0)).containsExactly(rows[1]);
    assertThat(row(1)).isEmpty();
    assertThat(row(2)).containsExactly(rows[3]);
    assertThat(row(3)).containsExactly(rows[4]);
  }

  private static int[] ints(List<Integer> values) {
    return values.stream().mapToInt(Integer::intValue).toArray();
  }

  private static int[] ints(List<Integer> values, int from, int to) {
    return ints(values.subList(from, to));
  }

  @Test
  void shouldLookUpDictionaryIds() throws IOException {
    DictionaryPage dictionary = Pages.dictionary(Pages.ints(7, 9), 2);
    ChunkDecoder decoder =
        tokens(
            dictionary,
            Pages.v1(
                1,
                new int[] {0, 1, 0, 1, 1},
                2,
                new int[] {3, 3, 3, 3, 3},
                Pages.ids(1, 0, 1, 1, 1, 0),
                Encoding.RLE_DICTIONARY));

    decoder.readVariable(2, window, 0, 0);

    assertThat(row(0)).containsExactly(7, 9);
    assertThat(row(1)).containsExactly(9, 9, 7);
  }

  @Test
  void shouldNameANullListAndANullValueByTheirRow() {
    assertThatThrownBy(
            () ->
                tokens(null, page(new int[] {0, 1, 0, 0}, new int[] {3, 3, 3, 0}, 1, 2, 3))
                    .readVariable(3, window, 0, 0))
        .hasMessageStartingWith("column 'tokens' is null in row 102 of file 'f'");
    assertThatThrownBy(
            () ->
                tokens(null, page(new int[] {0, 0, 1, 1}, new int[] {3, 3, 2, 3}, 1, 2, 3))
                    .readVariable(2, window, 0, 0))
        .hasMessageStartingWith("column 'tokens' holds a null value in row 101 of file 'f'");
  }

  /** Levels repeated long enough are written as runs, which the decoder takes in one step. */
  @Test
  void shouldTakeRunsOfEmptyListsAndRefuseRunsOfNullsAndNullValues() throws IOException {
    int[] reps = new int[23];
    int[] defs = new int[23];
    java.util.Arrays.fill(defs, 0, 20, 1); // 20 empty lists, then [4, 5, 6]
    reps[21] = 1;
    reps[22] = 1;
    defs[20] = 3;
    defs[21] = 3;
    defs[22] = 3;
    ChunkDecoder decoder = tokens(null, page(reps, defs, 4, 5, 6));
    decoder.readVariable(8, window, 0, 0);
    decoder.readVariable(8, window, 0, 0);
    decoder.readVariable(5, window, 0, 0);
    for (int r = 0; r < 4; r++) {
      assertThat(row(r)).as("row %d", r).isEmpty();
    }
    assertThat(row(4)).containsExactly(4, 5, 6);

    int[] nullValues = new int[12]; // one list of 12 null values
    java.util.Arrays.fill(nullValues, 2);
    int[] inList = new int[12];
    java.util.Arrays.fill(inList, 1);
    inList[0] = 0;
    assertThatThrownBy(() -> tokens(null, page(inList, nullValues)).readVariable(1, window, 0, 0))
        .hasMessageStartingWith("column 'tokens' holds a null value in row 100 of file 'f'");
    int[] nullLists = new int[12];
    assertThatThrownBy(
            () -> tokens(null, page(new int[12], nullLists)).readVariable(8, window, 0, 0))
        .hasMessageStartingWith("column 'tokens' is null in row 100 of file 'f'");
  }

  @Test
  void shouldAssembleRandomListsAcrossBlocksPagesAndCallsAsWritten() throws IOException {
    Random random = new Random(17);
    for (int c = 0; c < 40; c++) {
      boolean dictionary = c % 2 == 1;
      int idWidth = c % 4 == 1 ? 16 : 6; // 16 bits: ids unpacked and looked up in one step
      int rows = 1 + random.nextInt(60);
      List<int[]> lists = new ArrayList<>();
      List<Integer> reps = new ArrayList<>();
      List<Integer> defs = new ArrayList<>();
      List<Integer> values = new ArrayList<>();
      for (int r = 0; r < rows; r++) {
        // Empty lists, short ones and some longer than a block of levels (4096 entries).
        int length =
            random.nextInt(5) == 0
                ? 0
                : random.nextInt(8) == 0 ? 3000 + random.nextInt(9000) : 1 + random.nextInt(40);
        int[] list = new int[length];
        if (length == 0) {
          reps.add(0);
          defs.add(1);
        }
        for (int i = 0; i < length; i++) {
          list[i] = dictionary ? random.nextInt(50) : random.nextInt();
          reps.add(i == 0 ? 0 : 1);
          defs.add(3);
          values.add(list[i]);
        }
        lists.add(list);
      }
      int[] dict = new int[50];
      for (int i = 0; i < dict.length; i++) {
        dict[i] = 1000 + i * 7;
      }
      // Pages cut at random entries, inside rows too.
      List<DataPage> pages = new ArrayList<>();
      int entry = 0;
      int valueAt = 0;
      while (entry < reps.size()) {
        int n = Math.min(reps.size() - entry, 1 + random.nextInt(6000));
        int[] pageReps = reps.subList(entry, entry + n).stream().mapToInt(i -> i).toArray();
        int[] pageDefs = defs.subList(entry, entry + n).stream().mapToInt(i -> i).toArray();
        int present = (int) java.util.Arrays.stream(pageDefs).filter(d -> d == 3).count();
        int[] pageValues =
            values.subList(valueAt, valueAt + present).stream().mapToInt(i -> i).toArray();
        pages.add(
            dictionary
                ? Pages.v1(
                    1,
                    pageReps,
                    2,
                    pageDefs,
                    Pages.ids(idWidth, pageValues),
                    Encoding.RLE_DICTIONARY)
                : Pages.v1(1, pageReps, 2, pageDefs, Pages.ints(pageValues), Encoding.PLAIN));
        entry += n;
        valueAt += present;
      }
      ChunkDecoder decoder =
          tokens(
              dictionary ? Pages.dictionary(Pages.ints(dict), dict.length) : null,
              pages.toArray(DataPage[]::new));
      String what = "case " + c;
      for (int row = 0; row < rows; ) {
        int n = Math.min(rows - row, 1 + random.nextInt(8));
        if (random.nextInt(4) == 0) {
          decoder.read(n, null, 0); // passed over
        } else {
          decoder.readVariable(n, window, 0, 0);
          for (int i = 0; i < n; i++) {
            int[] expected = lists.get(row + i).clone();
            if (dictionary) {
              for (int j = 0; j < expected.length; j++) {
                expected[j] = dict[expected[j]];
              }
            }
            assertThat(row(i)).as(what + " row " + (row + i)).isEqualTo(expected);
          }
        }
        row += n;
      }
      assertThatThrownBy(() -> decoder.readVariable(1, window, 0, 0))
          .as(what)
          .hasMessageContaining("the column chunk ended after " + rows + " rows");
    }
  }

  @Test
  void shouldRefuseADictionaryIdBeyondTheDictionaryAtEveryWidth() {
    DictionaryPage dictionary = Pages.dictionary(Pages.ints(7, 9, 11), 3);
    for (int width : new int[] {2, 6, 16}) {
      for (int[] ids : new int[][] {{0, 1, 3}, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3}}) { // packed, run
        int[] reps = new int[ids.length];
        int[] defs = new int[ids.length];
        java.util.Arrays.fill(reps, 1);
        reps[0] = 0;
        java.util.Arrays.fill(defs, 3);
        assertThatThrownBy(
                () ->
                    tokens(
                            dictionary,
                            Pages.v1(
                                1, reps, 2, defs, Pages.ids(width, ids), Encoding.RLE_DICTIONARY))
                        .readVariable(1, window, 0, 0))
            .as("width " + width)
            .isInstanceOf(IOException.class)
            .hasMessageContaining("dictionary id 3 of a dictionary of 3")
            .hasMessageContaining("tokens");
      }
    }
  }

  @Test
  void shouldRefuseAChunkThatStartsInsideARow() {
    assertThatThrownBy(
            () ->
                tokens(null, page(new int[] {1, 0}, new int[] {3, 3}, 1, 2))
                    .readVariable(1, window, 0, 0))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("goes on with a row where a row should start");
  }

  @Test
  void shouldDecodeOrRefuseEveryBrokenPageWithAnIoExceptionOrABadRow() throws IOException {
    Random random = new Random(11);
    for (int c = 0; c < 3000; c++) {
      List<Integer> reps = new ArrayList<>();
      List<Integer> defs = new ArrayList<>();
      List<Integer> values = new ArrayList<>();
      int rows = 1 + random.nextInt(20);
      for (int r = 0; r < rows; r++) {
        int length = random.nextInt(6);
        if (length == 0) {
          reps.add(0);
          defs.add(1);
        }
        for (int i = 0; i < length; i++) {
          reps.add(i == 0 ? 0 : 1);
          defs.add(3);
          values.add(random.nextInt());
        }
      }
      DataPageV1 page =
          Pages.v1(
              1,
              reps.stream().mapToInt(Integer::intValue).toArray(),
              2,
              defs.stream().mapToInt(Integer::intValue).toArray(),
              Pages.ints(values.stream().mapToInt(Integer::intValue).toArray()),
              Encoding.PLAIN);
      byte[] bytes = page.getBytes().toByteArray();
      bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
      int count = page.getValueCount() + (random.nextInt(4) == 0 ? random.nextInt(5) - 2 : 0);
      DataPage broken =
          new DataPageV1(
              BytesInput.from(bytes),
              Math.max(0, count),
              bytes.length,
              null,
              Encoding.RLE,
              Encoding.RLE,
              Encoding.PLAIN);
      String what = "case " + c;
      try {
        ChunkDecoder decoder = tokens(null, broken);
        for (int left = rows; left > 0; ) {
          int n = Math.min(left, 1 + random.nextInt(8));
          if (random.nextBoolean()) {
            decoder.read(n, null, 0);
          } else {
            decoder.readVariable(n, window, 0, 0);
          }
          left -= n;
        }
      } catch (IOException | RowErrors.BadRow e) {
        assertThat(e.getMessage()).as(what).contains("tokens");
      }
    }
  }
}
