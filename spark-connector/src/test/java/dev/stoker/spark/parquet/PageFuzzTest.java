package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import dev.stoker.spark.testing.SparkClusters;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files written by Spark (PLAIN and dictionary pages, v1 and v2, uncompressed, Snappy and GZIP,
 * with page checksums and without), broken by a seeded mutator in their page headers, dictionaries,
 * levels and values, their chunks cut short and their footers' value counts raised, then read by
 * Stoker's one decoder ({@link ParquetRunReader}), as the DataSource's ranks and the runner's read
 * their runs. Every value is a function of its row id, so every case must give exactly the rows
 * written or an {@link IOException} naming the file, the column and the byte (or a bad row naming
 * its row), within a time bound: never another exception, an {@link Error}, a hang or a silently
 * different value.
 *
 * <p>A flipped byte among the values of a page without a checksum cannot be told from a value
 * written so: pages without checksums (files written without them, and v2 pages, for which Parquet
 * 1.13 writes none) have their headers broken only, and their files no bytes cut (the pages behind
 * a cut shift, and a value shifted into a page without a checksum is such a flipped value).
 *
 * <p>{@code -Dstoker.fuzz.cases=N} sets the cases (default 4000), {@code -Dstoker.fuzz.seed=S} the
 * seed; a failing case prints its number and mutation, to be rerun alone.
 */
class PageFuzzTest {
  private static final int CASES = Integer.getInteger("stoker.fuzz.cases", 4000);
  private static final long SEED = Long.getLong("stoker.fuzz.seed", 14);
  private static final int ROWS = 700;

  /** The longest one case may take, a hang past it a failure. */
  private static final long CASE_SECONDS = 30;

  private static final List<Field> FIELDS =
      List.of(
          Field.of("id", DType.INT64),
          Field.of("label", DType.INT32),
          Field.of("x", DType.FLOAT32),
          Field.of("vec", DType.FLOAT32, 3),
          Field.of("pix", DType.UINT8, 4));
  private static final List<ColumnSpec> SPECS =
      List.of(
          new ColumnSpec("id", Kind.SCALAR, DType.INT64, new int[0], ""),
          new ColumnSpec("label", Kind.SCALAR, DType.INT32, new int[0], ""),
          new ColumnSpec("x", Kind.SCALAR, DType.FLOAT32, new int[0], ""),
          new ColumnSpec("vec", Kind.LIST, DType.FLOAT32, new int[] {3}, "the footers"),
          new ColumnSpec("pix", Kind.BINARY, DType.UINT8, new int[] {4}, "shape.pix"));

  /** One configuration for every read: making one loads Hadoop's resources. */
  private static final Configuration CONF = new Configuration();

  private static final int[] NASTY = {
    0x7ffffff0, 0x80000000, -1, 0, 1, 2_000_000_000, 1 << 28, (1 << 29) + 1, -2, 0x10000
  };

  @TempDir static Path dir;
  private static SparkSession spark;
  private static final List<Sample> SAMPLES = new ArrayList<>();

  /** A file as Spark wrote it: its bytes, its pages and the columns decoded from it. */
  private record Sample(
      String name,
      int[] columns,
      byte[] bytes,
      List<Page> pages,
      int footerAt,
      int groups,
      ByteBuffer[] decoded) {}

  /** Every column; v2 files leave out those Parquet writes in DELTA encodings (unique ints). */
  private static final int[] ALL = {0, 1, 2, 3, 4};

  private static final int[] V2 = {1, 2, 3};

  /** A page: header {@code [at, body)}, body {@code [body, end)}; whether it has a checksum. */
  private record Page(int at, int body, int end, PageType type, boolean crc) {}

  @BeforeAll
  static void writeFiles() throws IOException {
    spark = SparkClusters.local(1);
    write("snappy-dictionary-v1", "snappy", true, "v1", true);
    write("gzip-dictionary-v1", "gzip", true, "v1", true);
    write("uncompressed-plain-v1", "none", false, "v1", true);
    write("snappy-plain-v1", "snappy", false, "v1", true);
    write("gzip-plain-v1", "gzip", false, "v1", true);
    write("snappy-dictionary-v2", "snappy", true, "v2", true);
    write("gzip-dictionary-v2", "gzip", true, "v2", true);
    write("uncompressed-dictionary-v2", "none", true, "v2", true);
    write("snappy-dictionary-v1-no-checksums", "snappy", true, "v1", false);
    write("uncompressed-plain-v1-no-checksums", "none", false, "v1", false);
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  private static void write(
      String name, String codec, boolean dictionary, String version, boolean checksums)
      throws IOException {
    Path folder = dir.resolve(name);
    spark
        .range(0, ROWS, 1, 1)
        .selectExpr(
            "id",
            "cast(id % 37 as int) as label",
            "cast(id * 0.5 as float) as x",
            "array(cast(id as float), cast(id + 1 as float), cast(id * 2 as float)) as vec",
            "unhex(lpad(hex(id), 8, '0')) as pix")
        .write()
        .option("compression", codec)
        .option("parquet.enable.dictionary", dictionary)
        .option("parquet.writer.version", version.equals("v2") ? "PARQUET_2_0" : "PARQUET_1_0")
        .option("parquet.page.write-checksum.enabled", checksums)
        .option("parquet.page.size", "512")
        .option("parquet.page.size.row.check.min", "5")
        .option("parquet.page.size.row.check.max", "50")
        .option("parquet.block.size", "8192")
        .parquet(folder.toString());
    Path file;
    try (Stream<Path> files = Files.list(folder)) {
      file = files.filter(f -> f.toString().endsWith(".parquet")).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(file);
    Path copy = dir.resolve(name + ".parquet"); // without Hadoop's checksum file
    Files.write(copy, bytes);
    int[] columns = version.equals("v2") ? V2 : ALL;
    int groups =
        Util.readFileMetaData(
                new ByteArrayInputStream(bytes, footerAt(bytes), bytes.length - footerAt(bytes)))
            .getRow_groupsSize();
    ByteBuffer[] decoded = runDecode(copy.toString(), bytes.length, groups, columns);
    assertThat(decoded).as(name + " reads back").isNotNull();
    checkValues(name, decoded, columns);
    SAMPLES.add(new Sample(name, columns, bytes, pages(bytes), footerAt(bytes), groups, decoded));
  }

  /** The columns hold what the row ids say they do. */
  private static void checkValues(String name, ByteBuffer[] decoded, int[] columns) {
    ByteBuffer[] all = new ByteBuffer[SPECS.size()];
    for (int i = 0; i < columns.length; i++) {
      all[columns[i]] = decoded[i];
    }
    for (int r = 0; r < ROWS; r++) {
      if (all[0] != null) {
        assertThat(all[0].getLong(r * 8)).as(name).isEqualTo(r);
      }
      assertThat(all[1].getInt(r * 4)).as(name).isEqualTo(r % 37);
      assertThat(all[2].getFloat(r * 4)).as(name).isEqualTo((float) (r * 0.5));
      assertThat(all[3].getFloat(r * 12 + 8)).as(name).isEqualTo((float) (r * 2));
      if (all[4] != null) {
        assertThat(all[4].order(ByteOrder.BIG_ENDIAN).getInt(r * 4)).as(name).isEqualTo(r);
        all[4].order(ByteOrder.LITTLE_ENDIAN);
      }
    }
  }

  private static int footerAt(byte[] bytes) {
    int length =
        ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    return bytes.length - 8 - length;
  }

  /** Every page of every column chunk, walked from the footer's chunk offsets. */
  private static List<Page> pages(byte[] bytes) throws IOException {
    FileMetaData footer =
        Util.readFileMetaData(
            new ByteArrayInputStream(bytes, footerAt(bytes), bytes.length - footerAt(bytes)));
    List<Page> pages = new ArrayList<>();
    for (RowGroup group : footer.getRow_groups()) {
      for (ColumnChunk chunk : group.getColumns()) {
        long start =
            chunk.getMeta_data().isSetDictionary_page_offset()
                ? chunk.getMeta_data().getDictionary_page_offset()
                : chunk.getMeta_data().getData_page_offset();
        int at = (int) start;
        int end = (int) (start + chunk.getMeta_data().getTotal_compressed_size());
        while (at < end) {
          ByteArrayInputStream in = new ByteArrayInputStream(bytes, at, end - at);
          PageHeader header = Util.readPageHeader(in);
          int body = end - in.available();
          int stop = body + header.getCompressed_page_size();
          pages.add(new Page(at, body, stop, header.getType(), header.isSetCrc()));
          at = stop;
        }
      }
    }
    return pages;
  }

  /** The file's columns through the DataSource's decoder, as a rank reads one whole run. */
  private static ByteBuffer[] runDecode(String path, long length, int groups, int[] picked)
      throws IOException {
    return runDecode(path, length, groups, picked, true);
  }

  private static ByteBuffer[] runDecode(
      String path, long length, int groups, int[] picked, boolean verify) throws IOException {
    List<ColumnSpec> specs = new ArrayList<>();
    for (int c : picked) {
      specs.add(SPECS.get(c));
    }
    long rows = ROWS;
    ReadRun run = new ReadRun(path, 0, length, 0, groups, 0, rows, 0, rows, length, true);
    ReadConfig config =
        new ReadConfig(null, 0, null, specs, ROWS, ROWS, new HadoopConf(CONF), verify);
    ByteBuffer[] columns = buffers(picked);
    try (DirectAllocator allocator = new DirectAllocator("fuzz", 1 << 20);
        ShuffleWindow window = new ShuffleWindow(allocator, specs, ROWS);
        ParquetRunReader reader = new ParquetRunReader(run, config, CONF)) {
      for (int row = 0; row < ROWS; ) {
        row += reader.read(window, row, ROWS - row);
      }
      for (int c = 0; c < columns.length; c++) {
        ByteBuffer from = window.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int at = window.offset(c, 0, ROWS);
        int bytes = ROWS * specs.get(c).rowBytes();
        columns[c].put(0, from, at, bytes);
      }
    }
    return columns;
  }

  private static ByteBuffer[] buffers(int[] picked) {
    ByteBuffer[] columns = new ByteBuffer[picked.length];
    for (int c = 0; c < columns.length; c++) {
      columns[c] =
          ByteBuffer.allocate(ROWS * SPECS.get(picked[c]).rowBytes())
              .order(ByteOrder.LITTLE_ENDIAN);
    }
    return columns;
  }

  @Test
  void shouldReadEveryBrokenFileExactlyOrRefuseItWithTheFileColumnAndByte() throws Exception {
    Map<String, Integer> outcomes = new TreeMap<>();
    List<String> failures = new ArrayList<>();
    Path file = dir.resolve("case.parquet");
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try {
      for (int n = 0; n < CASES && failures.size() < 10; n++) {
        Random random = new Random(SEED * 1_000_003L + n);
        Sample sample = SAMPLES.get(random.nextInt(SAMPLES.size()));
        StringBuilder what = new StringBuilder(sample.name() + ": ");
        byte[] broken = mutate(sample, random, what);
        Files.write(file, broken);
        String path = file.toString();
        Future<String> result = runner.submit(() -> outcome(sample, path, broken.length));
        String outcome;
        try {
          outcome = result.get(CASE_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          result.cancel(true);
          failures.add("case " + n + " (" + what + "): no answer in " + CASE_SECONDS + " s");
          break;
        }
        if (outcome.startsWith("FAIL")) {
          failures.add("case " + n + " (" + what + "): " + outcome);
        } else if (outcome.equals("bad row") && outcomes.getOrDefault(outcome, 0) < 5) {
          System.out.printf("page fuzz: case %d (%s): a bad row%n", n, what);
        }
        outcomes.merge(outcome.startsWith("FAIL") ? "FAIL" : outcome, 1, Integer::sum);
      }
    } finally {
      runner.shutdownNow();
    }
    System.out.printf(
        "page fuzz: %d of %d cases run, seed %d: %s%n",
        outcomes.values().stream().mapToInt(Integer::intValue).sum(), CASES, SEED, outcomes);
    assertThat(failures).isEmpty();
    assertThat(outcomes.getOrDefault("refused", 0)).as("cases refused").isPositive();
    assertThat(outcomes.getOrDefault("same rows", 0)).as("cases read unchanged").isPositive();
  }

  /** What the decoder makes of the broken file: "same rows", "refused", "bad row" or FAIL. */
  private static String outcome(Sample sample, String path, long length) {
    return judge(sample, path, () -> runDecode(path, length, sample.groups(), sample.columns()));
  }

  private interface Decode {
    ByteBuffer[] run() throws IOException;
  }

  private static String judge(Sample sample, String path, Decode decode) {
    try {
      ByteBuffer[] columns = decode.run();
      if (columns == null) {
        return "FAIL: fewer rows, no error";
      }
      for (int c = 0; c < columns.length; c++) {
        if (!columns[c].equals(sample.decoded()[c])) {
          return "FAIL: column '"
              + SPECS.get(sample.columns()[c]).name()
              + "' read other values, no error";
        }
      }
      return "same rows";
    } catch (IOException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof Error) {
          return "FAIL: an Error in the cause chain: " + e;
        }
      }
      String message = String.valueOf(e.getMessage());
      boolean named =
          message.contains(path) && message.contains("column '") && message.contains(" at byte ");
      return named
          ? "refused"
          : "FAIL: an IOException that does not name the file, the column " + "and the byte: " + e;
    } catch (RowErrors.BadRow e) {
      return e.getMessage().contains(path) ? "bad row" : "FAIL: " + e;
    } catch (RuntimeException | Error e) {
      return "FAIL: " + e + " at " + Arrays.toString(Arrays.copyOf(e.getStackTrace(), 4));
    }
  }

  /** A copy of {@code sample}'s bytes broken one way, the way said in {@code what}. */
  private static byte[] mutate(Sample sample, Random random, StringBuilder what)
      throws IOException {
    byte[] bytes = sample.bytes().clone();
    List<Page> pages = sample.pages();
    Page page = pages.get(random.nextInt(pages.size()));
    int kind = random.nextInt(6);
    if (kind == 4 && !pages.stream().allMatch(Page::crc)) {
      kind = 0; // bytes cut shift the pages behind them: unseen in a page without a checksum
    }
    // Parquet 1.13 writes no checksum for v2 pages: their bodies, like those of files written
    // without checksums, are left alone (a changed value there cannot be told).
    boolean body = kind <= 2 && page.crc() && random.nextBoolean();
    int from = body ? page.body() : page.at();
    int to = body ? page.end() : page.body();
    switch (kind) {
      case 0, 1 -> { // flip bits
        int flips = 1 + random.nextInt(kind == 0 ? 1 : 4);
        for (int i = 0; i < flips; i++) {
          int at = from + random.nextInt(to - from);
          bytes[at] ^= (byte) (1 << random.nextInt(8));
        }
        what.append(flips)
            .append(" bit(s) flipped in the ")
            .append(body ? "body" : "header")
            .append(" of the ")
            .append(page.type())
            .append(" page at ")
            .append(page.at());
      }
      case 2 -> { // an extreme number written over some bytes
        int value = NASTY[random.nextInt(NASTY.length)];
        int at = from + random.nextInt(to - from);
        boolean varint = random.nextBoolean();
        byte[] encoded =
            varint
                ? varint(value)
                : ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(value).array();
        for (int i = 0; i < encoded.length && at + i < to; i++) {
          bytes[at + i] = encoded[i];
        }
        what.append(varint ? "varint " : "int ")
            .append(value)
            .append(" written at ")
            .append(at)
            .append(" in the ")
            .append(body ? "body" : "header")
            .append(" of the ")
            .append(page.type())
            .append(" page at ")
            .append(page.at());
      }
      case 3 -> { // a header field rewritten
        return rewriteHeader(bytes, page, random, what);
      }
      case 4 -> { // bytes cut out of a chunk, the footer kept
        int at = page.at() + random.nextInt(page.end() - page.at());
        int cut = 1 + random.nextInt(Math.min(64, sample.footerAt() - at));
        what.append(cut).append(" bytes cut at ").append(at);
        return splice(bytes, at, at + cut, new byte[0]);
      }
      default -> { // a chunk's value count or size in the footer raised or lowered
        return rewriteFooter(sample, bytes, random, what);
      }
    }
    return bytes;
  }

  private static byte[] rewriteHeader(byte[] bytes, Page page, Random random, StringBuilder what)
      throws IOException {
    PageHeader header =
        Util.readPageHeader(new ByteArrayInputStream(bytes, page.at(), page.body() - page.at()));
    int value =
        random.nextBoolean()
            ? NASTY[random.nextInt(NASTY.length)]
            : header.getUncompressed_page_size() + random.nextInt(9) - 4;
    int field = random.nextInt(6);
    switch (field) {
      case 0 -> header.setUncompressed_page_size(value);
      case 1 -> header.setCompressed_page_size(value);
      case 2 -> {
        if (header.isSetData_page_header()) {
          header.getData_page_header().setNum_values(value);
        } else if (header.isSetData_page_header_v2()) {
          header.getData_page_header_v2().setNum_values(value);
        } else if (header.isSetDictionary_page_header()) {
          header.getDictionary_page_header().setNum_values(value);
        }
      }
      case 3 -> {
        if (header.isSetData_page_header_v2()) {
          header.getData_page_header_v2().setDefinition_levels_byte_length(value);
        }
      }
      case 4 -> {
        if (header.isSetData_page_header_v2()) {
          header.getData_page_header_v2().setRepetition_levels_byte_length(value);
        } else if (header.isSetData_page_header()) {
          header
              .getData_page_header()
              .setEncoding(
                  org.apache.parquet.format.Encoding.values()[
                      random.nextInt(org.apache.parquet.format.Encoding.values().length)]);
        }
      }
      default -> header.setCrc(header.isSetCrc() ? header.getCrc() ^ 1 : value);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Util.writePageHeader(header, out);
    what.append("header field ")
        .append(field)
        .append(" set to ")
        .append(value)
        .append(" in the ")
        .append(page.type())
        .append(" page at ")
        .append(page.at());
    return splice(bytes, page.at(), page.body(), out.toByteArray());
  }

  private static byte[] rewriteFooter(
      Sample sample, byte[] bytes, Random random, StringBuilder what) throws IOException {
    int at = sample.footerAt();
    FileMetaData footer =
        Util.readFileMetaData(new ByteArrayInputStream(bytes, at, bytes.length - 8 - at));
    RowGroup group = footer.getRow_groups().get(random.nextInt(footer.getRow_groupsSize()));
    ColumnChunk chunk = group.getColumns().get(random.nextInt(group.getColumnsSize()));
    long value =
        random.nextBoolean()
            ? 1L << (20 + random.nextInt(12))
            : chunk.getMeta_data().getNum_values() + random.nextInt(9) - 4;
    boolean count = random.nextBoolean();
    if (count) {
      chunk.getMeta_data().setNum_values(value);
    } else {
      chunk
          .getMeta_data()
          .setTotal_compressed_size(
              chunk.getMeta_data().getTotal_compressed_size() + random.nextInt(65) - 32);
    }
    what.append("footer: a chunk's ").append(count ? "value count set to " + value : "size moved");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(bytes, 0, at);
    ByteArrayOutputStream meta = new ByteArrayOutputStream();
    Util.writeFileMetaData(footer, meta);
    meta.writeTo(out);
    out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(meta.size()).array());
    out.write(new byte[] {'P', 'A', 'R', '1'});
    return out.toByteArray();
  }

  private static byte[] splice(byte[] bytes, int from, int to, byte[] with) {
    byte[] out = new byte[bytes.length - (to - from) + with.length];
    System.arraycopy(bytes, 0, out, 0, from);
    System.arraycopy(with, 0, out, from, with.length);
    System.arraycopy(bytes, to, out, from + with.length, bytes.length - to);
    return out;
  }

  private static byte[] varint(int value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long v = value & 0xffffffffL;
    do {
      out.write((int) (v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
      v >>>= 7;
    } while (v != 0);
    return out.toByteArray();
  }

  @Test
  void shouldRefuseAFlippedValueThroughFormatStokerUnlessChecksumsAreOff() throws IOException {
    Sample sample =
        SAMPLES.stream()
            .filter(s -> s.name().equals("uncompressed-plain-v1"))
            .findFirst()
            .orElseThrow();
    Page page =
        sample.pages().stream()
            .filter(p -> p.type() == PageType.DATA_PAGE)
            .findFirst()
            .orElseThrow();
    byte[] broken = sample.bytes().clone();
    broken[page.end() - 1] ^= 0x40; // the last value's last byte
    Path file = dir.resolve("flipped.parquet");
    Files.write(file, broken);

    assertThatThrownBy(() -> read(file, true))
        .hasStackTraceContaining(
            "a page whose checksum does not match its bytes in the page at byte " + page.at());
    List<Row> unchecked = read(file, false);
    assertThat(unchecked).hasSize(ROWS);
    assertThatThrownBy(() -> runDecode(file.toString(), broken.length, sample.groups(), ALL, true))
        .hasMessageContaining("a page whose checksum does not match its bytes");
    assertThat(runDecode(file.toString(), broken.length, sample.groups(), ALL, false))
        .as("read, a value changed unseen")
        .isNotNull();
  }

  private static List<Row> read(Path file, boolean verify) {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", 100)
        .option("worldSize", 1)
        .option("shape.pix", "4")
        .option("verifyChecksums", verify)
        .load(file.toString())
        .select("id")
        .collectAsList();
  }
}
