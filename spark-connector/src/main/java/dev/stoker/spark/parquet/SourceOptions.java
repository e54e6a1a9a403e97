package dev.stoker.spark.parquet;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.loader.LoaderOptionTable;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.OnBadSample;
import dev.stoker.loader.OptionNames;
import dev.stoker.loader.Placement;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.tokens.TokenLayout;
import dev.stoker.loader.tokens.TokenOptions;
import dev.stoker.spark.options.OptionLayer;
import dev.stoker.spark.options.OptionReader;
import dev.stoker.spark.options.OptionRegistry;
import dev.stoker.spark.options.SparkOptionTable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The options of one read through {@code format("stoker")}, checked on the driver and complete when
 * made. Names ignore case, as Spark's do: the loader's knobs ({@link OptionNames#LOADER}), {@code
 * worldSize}, the source's own ({@link #EPOCH}, {@link #SHUFFLE_BUFFER}, {@code shape.<column>},
 * ...: the {@code SOURCE} layer of {@link SparkOptionTable}), Spark's {@code path}/{@code paths},
 * and Hadoop settings for this read (any other name with a dot, such as {@code fs.s3a.endpoint}).
 * Any other name is an error suggesting the closest known one.
 */
public final class SourceOptions {
  /** The names of the source's own options, each defined in {@link SparkOptionTable}. */
  public static final String EPOCH = SparkOptionTable.EPOCH.name();

  public static final String SHUFFLE_BUFFER = SparkOptionTable.SHUFFLE_BUFFER.name();

  /** The prefix of a tensor column's shape, e.g. {@code shape.image = 3,32,32}. */
  public static final String SHAPE_PREFIX = SparkOptionTable.SHAPE.name();

  public static final String VERIFY_CHECKSUMS = SparkOptionTable.VERIFY_CHECKSUMS.name();
  public static final String RESUME_FROM = SparkOptionTable.RESUME_FROM.name();
  public static final String ACCEPT_CHANGED_INPUT = SparkOptionTable.ACCEPT_CHANGED_INPUT.name();
  public static final String TRANSFORMS = SparkOptionTable.TRANSFORMS.name();

  /** Spark's own key for {@code load(path)}. */
  public static final String PATH = "path";

  /** Spark's own key for {@code load(paths...)}, a JSON array. */
  public static final String PATHS = "paths";

  /** The names a read takes beside the loader's, in the order its errors list them. */
  private static final List<String> OWN =
      List.of(
          EPOCH,
          SHUFFLE_BUFFER,
          VERIFY_CHECKSUMS,
          PATH,
          PATHS,
          RESUME_FROM,
          ACCEPT_CHANGED_INPUT,
          TRANSFORMS,
          SparkOptionTable.GLOBAL_BATCH_SIZE.name(),
          SparkOptionTable.ORDER_STREAMS.name(),
          SparkOptionTable.EPOCH_ORDER.name(),
          SparkOptionTable.TABLE_FORMAT.name(),
          SparkOptionTable.TABLE.name(),
          SparkOptionTable.VERSION_AS_OF.name(),
          SparkOptionTable.DOCUMENT_COLUMN.name(),
          SparkOptionTable.LABEL_COLUMN.name(),
          TokenOptions.PACK,
          TokenOptions.PAD,
          TokenOptions.EOD_TOKEN,
          TokenOptions.PAD_TOKEN,
          TokenOptions.SHIFT_LABELS,
          TokenOptions.DOCUMENT_BOUNDARIES,
          TokenOptions.LONG_DOCUMENTS,
          TokenOptions.VOCAB_SIZE,
          TokenOptions.MAX_DOCUMENT_TOKENS,
          TokenOptions.TOKENIZER);

  /** The layers of the options a read takes. */
  public static final Set<OptionLayer> LAYERS =
      Collections.unmodifiableSet(
          EnumSet.of(OptionLayer.LOADER, OptionLayer.PLACEMENT, OptionLayer.SOURCE));

  private final LoaderOptions loader;
  private final int worldSize;
  private final int epoch;
  private final Integer shuffleBuffer;
  private final boolean verifyChecksums;
  private final Map<String, int[]> shapes;
  private final Map<String, String> hadoop;
  private final List<String> paths;
  private final Set<String> given;
  private final LoaderState resumeFrom;
  private final boolean acceptChangedInput;
  private final String transforms;

  /** The token rows the read makes of its documents, or null. */
  private final TokenLayout tokens;

  /** The column of documents the read names, or null. */
  private final String documentColumn;

  /** The Delta or Iceberg table read, or null: Parquet files. */
  private final TableRef table;

  /** The column of labels whose mix the order's measure reports, or null. */
  private final String labelColumn;

  /** The global order of {@code globalBatchSize}, or null: each rank's own. */
  private final GlobalBatch global;

  /** Whether later epochs are planned again over the whole input ({@code epochOrder=global}). */
  private final boolean globalEpochs;

  private SourceOptions(
      LoaderOptions loader,
      int worldSize,
      int epoch,
      Integer shuffleBuffer,
      boolean verifyChecksums,
      Map<String, int[]> shapes,
      Map<String, String> hadoop,
      List<String> paths,
      Set<String> given,
      LoaderState resumeFrom,
      boolean acceptChangedInput,
      String transforms,
      TokenLayout tokens,
      String documentColumn,
      TableRef table,
      GlobalBatch global,
      boolean globalEpochs,
      String labelColumn) {
    this.table = table;
    this.labelColumn = labelColumn;
    this.global = global;
    this.globalEpochs = globalEpochs;
    this.tokens = tokens;
    this.documentColumn = documentColumn;
    this.loader = loader;
    this.transforms = transforms;
    this.worldSize = worldSize;
    this.epoch = epoch;
    this.shuffleBuffer = shuffleBuffer;
    this.verifyChecksums = verifyChecksums;
    this.shapes = shapes;
    this.hadoop = hadoop;
    this.paths = paths;
    this.given = given;
    this.resumeFrom = resumeFrom;
    this.acceptChangedInput = acceptChangedInput;
  }

  /** The defaults, for a read of {@code paths} that was given no options of Stoker's. */
  public static SourceOptions defaults(List<String> paths) {
    return new SourceOptions(
        LoaderOptions.builder().build(),
        SparkOptionTable.WORLD_SIZE.defaultValue(),
        SparkOptionTable.EPOCH.defaultValue(),
        SparkOptionTable.SHUFFLE_BUFFER.defaultValue(),
        SparkOptionTable.VERIFY_CHECKSUMS.defaultValue(),
        Map.of(),
        Map.of(),
        List.copyOf(paths),
        Set.of(),
        SparkOptionTable.RESUME_FROM.defaultValue(),
        SparkOptionTable.ACCEPT_CHANGED_INPUT.defaultValue(),
        SparkOptionTable.TRANSFORMS.defaultValue(),
        null,
        null,
        null,
        null,
        false,
        null);
  }

  /** As {@link #parse(Map, Map)}, without session settings. */
  static SourceOptions parse(Map<String, String> given) {
    return parse(given, Map.of());
  }

  /**
   * Parses Spark's option map, the session's {@code spark.stoker.*} settings ({@code session})
   * standing in for the options not given; every bad name or value is an IllegalArgumentException.
   * {@link #given()} names the options of {@code given} only.
   */
  static SourceOptions parse(Map<String, String> given, Map<String, String> session) {
    Map<String, String> stoker = new LinkedHashMap<>();
    Map<String, int[]> shapes = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    Map<String, String> hadoop = new TreeMap<>();
    for (Map.Entry<String, String> e : OptionRegistry.resolve(given, session, LAYERS).entrySet()) {
      String key = e.getKey();
      if (key.toLowerCase(Locale.ROOT).startsWith(SHAPE_PREFIX)) {
        if (shapes.put(
                key.substring(SHAPE_PREFIX.length()),
                SparkOptionTable.SHAPE.parse(key, e.getValue()))
            != null) {
          throw new IllegalArgumentException(
              key
                  + ": given twice in different case (expected: "
                  + "once; option names ignore case)");
        }
      } else if (key.indexOf('.') >= 0) {
        hadoop.put(key, e.getValue());
      } else {
        stoker.put(key, e.getValue());
      }
    }
    LoaderOptions loader = LoaderOptions.fromMap(stoker, OWN);
    OptionReader read = OptionReader.of(stoker);
    refuseWhatAReadCannotDo(read, loader);
    int worldSize = Placement.fromMap(stoker).worldSize();
    GlobalBatch global = global(read, given.keySet(), loader, worldSize);
    if (global != null) {
      loader = loader.toBuilder().batchSize(global.rankBatch(worldSize)).dropLast(true).build();
    }
    LoaderState state = read.get(SparkOptionTable.RESUME_FROM);
    int epoch = read.get(SparkOptionTable.EPOCH);
    if (state != null && read.text(SparkOptionTable.EPOCH) != null && epoch != state.epoch()) {
      throw new IllegalArgumentException(
          EPOCH
              + ": '"
              + read.text(SparkOptionTable.EPOCH)
              + "' (expected: no epoch, or "
              + state.epoch()
              + ", the epoch of "
              + RESUME_FROM
              + ")");
    }
    TableRef table = table(read);
    return new SourceOptions(
        loader,
        worldSize,
        state != null ? state.epoch() : epoch,
        read.get(SparkOptionTable.SHUFFLE_BUFFER),
        read.get(SparkOptionTable.VERIFY_CHECKSUMS),
        Collections.unmodifiableMap(shapes),
        Collections.unmodifiableMap(hadoop),
        table != null ? table.paths() : paths(read),
        givenNames(given.keySet(), global != null),
        state,
        read.get(SparkOptionTable.ACCEPT_CHANGED_INPUT),
        read.get(SparkOptionTable.TRANSFORMS),
        tokens(read),
        read.text(SparkOptionTable.DOCUMENT_COLUMN),
        table,
        global,
        "global".equals(read.get(SparkOptionTable.EPOCH_ORDER)),
        read.text(SparkOptionTable.LABEL_COLUMN));
  }

  /** The read's global order, or null: checked against the world size and the loader's options. */
  private static GlobalBatch global(
      OptionReader read, Set<String> given, LoaderOptions loader, int worldSize) {
    Integer rows = read.get(SparkOptionTable.GLOBAL_BATCH_SIZE);
    if (rows == null) {
      if (read.text(SparkOptionTable.ORDER_STREAMS) != null) {
        throw new IllegalArgumentException(
            SparkOptionTable.ORDER_STREAMS.name()
                + ": '"
                + read.text(SparkOptionTable.ORDER_STREAMS)
                + "' without "
                + SparkOptionTable.GLOBAL_BATCH_SIZE.name()
                + " (expected: "
                + SparkOptionTable.GLOBAL_BATCH_SIZE.name()
                + " beside it, or no "
                + SparkOptionTable.ORDER_STREAMS.name()
                + ")");
      }
      return null;
    }
    boolean batchGiven =
        given.stream().anyMatch(key -> key.equalsIgnoreCase(OptionNames.BATCH_SIZE));
    boolean keepsLast =
        !loader.dropLast()
            && given.stream().anyMatch(key -> key.equalsIgnoreCase(OptionNames.DROP_LAST));
    GlobalBatch.refuseWithRankBatch(batchGiven, keepsLast);
    GlobalBatch global = new GlobalBatch(rows, read.get(SparkOptionTable.ORDER_STREAMS));
    global.check(worldSize);
    return global;
  }

  /** The global order of {@code globalBatchSize}, or null: each rank's own. */
  public GlobalBatch global() {
    return global;
  }

  /**
   * Whether the epochs after the read's are planned again over the whole input ({@code
   * epochOrder=global}): the Python package's, and a run's over the read.
   */
  public boolean globalEpochs() {
    return globalEpochs;
  }

  /** The table of {@code tableFormat} read by path or by {@code table}, or null. */
  private static TableRef table(OptionReader read) {
    String format = read.get(SparkOptionTable.TABLE_FORMAT);
    String name = read.text(SparkOptionTable.TABLE);
    Long version = read.get(SparkOptionTable.VERSION_AS_OF);
    if (format == null) {
      if (name != null || version != null) {
        throw new IllegalArgumentException(
            (name != null ? "table='" + name + "'" : "versionAsOf=" + version)
                + " without tableFormat (expected: tableFormat=delta or tableFormat=iceberg beside "
                + "it)");
      }
      return null;
    }
    List<String> paths =
        read.text(PATH) == null && read.text(PATHS) == null ? List.of() : paths(read);
    if (name != null && !paths.isEmpty() || name == null && paths.size() != 1) {
      throw new IllegalArgumentException(
          String.format(
              "tableFormat=%s with %s (expected: one table: load(path) with its path, or "
                  + "option(\"table\", name) and no path)",
              format,
              name != null
                  ? "table='" + name + "' and path(s) " + paths
                  : paths.isEmpty() ? "no path and no table" : paths.size() + " paths " + paths));
    }
    if (name != null && (name.isBlank() || name.chars().anyMatch(c -> c == ';' || c < ' '))) {
      throw new IllegalArgumentException(
          "table: '" + name + "' (expected: a table name such as db.name or catalog.db.name)");
    }
    return new TableRef(
        TableRef.Format.valueOf(format.toUpperCase(Locale.ROOT)),
        name,
        name == null ? paths.get(0) : null,
        version);
  }

  /** The Delta or Iceberg table the read loads, or null: Parquet files under {@link #paths}. */
  public TableRef table() {
    return table;
  }

  /** A rank (each partition is its rank) and skipped rows (they would unbalance the ranks). */
  private static void refuseWhatAReadCannotDo(OptionReader read, LoaderOptions loader) {
    String rank = read.text(LoaderOptionTable.RANK);
    if (rank != null) {
      throw new IllegalArgumentException(
          OptionNames.RANK
              + ": '"
              + rank
              + "' (expected: no "
              + "rank; format(\"stoker\") reads every rank at once, partition r being rank r: give "
              + "worldSize only)");
    }
    if (loader.onBadSample() != OnBadSample.FAIL) {
      throw new IllegalArgumentException(
          OptionNames.ON_BAD_SAMPLE
              + ": '"
              + loader.onBadSample().label()
              + "' (expected: fail; format(\"stoker\") cannot skip a "
              + "row without unbalancing the ranks: fix or filter the data when writing it)");
    }
  }

  /** The loader and placement options among {@code keys}, by their own names. */
  private static Set<String> givenNames(Set<String> keys, boolean globalBatch) {
    Set<String> names = new LinkedHashSet<>();
    if (globalBatch) { // globalBatchSize sets them: a run takes them from the read
      names.add(OptionNames.BATCH_SIZE);
      names.add(OptionNames.DROP_LAST);
    }
    for (String key : keys) {
      for (String name : OptionNames.LOADER) {
        if (name.equalsIgnoreCase(key)) {
          names.add(name);
        }
      }
      if (OptionNames.WORLD_SIZE.equalsIgnoreCase(key)) {
        names.add(OptionNames.WORLD_SIZE);
      }
    }
    return Collections.unmodifiableSet(names);
  }

  /**
   * The names of the loader's knobs (and {@code worldSize}) the read was given, as {@link
   * OptionNames} spells them: the rest are defaults. {@code globalBatchSize} counts as giving
   * {@code batchSize} and {@code dropLast}, which it sets.
   */
  public Set<String> given() {
    return given;
  }

  /** Spark's {@code path} and {@code paths} (a JSON array, from {@code load(p1, p2, ...)}). */
  private static List<String> paths(OptionReader read) {
    List<String> paths = new ArrayList<>();
    String path = read.text(PATH);
    if (path != null && !path.isEmpty()) {
      paths.add(path);
    }
    String json = read.text(PATHS);
    if (json != null && !json.isEmpty()) {
      try {
        paths.addAll(Arrays.asList(new ObjectMapper().readValue(json, String[].class)));
      } catch (IOException e) {
        throw new IllegalArgumentException(
            PATHS
                + ": '"
                + json
                + "' (expected: a "
                + "JSON array of paths, as load(path, ...) sets it)",
            e);
      }
    }
    if (paths.isEmpty()) {
      throw new IllegalArgumentException(
          "path: none given (expected: load(path) with a Parquet "
              + "file or directory, or option(\"path\", ...) in SQL)");
    }
    return List.copyOf(paths);
  }

  public LoaderOptions loader() {
    return loader;
  }

  public int worldSize() {
    return worldSize;
  }

  public int epoch() {
    return epoch;
  }

  /** The shuffle buffer's rows if given, else null (chosen from the row size). */
  public Integer shuffleBuffer() {
    return shuffleBuffer;
  }

  /** Whether page checksums are verified where files have them. */
  public boolean verifyChecksums() {
    return verifyChecksums;
  }

  /** Column name (ignoring case) to its shape option. */
  public Map<String, int[]> shapes() {
    return shapes;
  }

  /** Hadoop settings for this read, name to value. */
  Map<String, String> hadoop() {
    return hadoop;
  }

  public List<String> paths() {
    return paths;
  }

  /** The state the read resumes from, or null: a fresh epoch. */
  public LoaderState resumeFrom() {
    return resumeFrom;
  }

  /** The spec of the transform every sample goes through, or null (checked when parsed). */
  public String transforms() {
    return transforms;
  }

  /** The token rows the read makes of its documents ({@code pack} or {@code pad}), or null. */
  public TokenLayout tokens() {
    return tokens;
  }

  /** The column of labels named by {@code labelColumn}, or null. */
  public String labelColumn() {
    return labelColumn;
  }

  /** The column of documents named by {@code documentColumn}, or null. */
  public String documentColumn() {
    return documentColumn;
  }

  /** The layout of {@code pack} or {@code pad}, or null; not with {@code transforms}. */
  private static TokenLayout tokens(OptionReader read) {
    Map<String, String> given = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (String name : TokenOptions.NAMES) {
      String value = read.text(name);
      if (value != null) {
        given.put(name, value);
      }
    }
    TokenLayout layout = TokenOptions.parse(given::get);
    String column = read.text(SparkOptionTable.DOCUMENT_COLUMN);
    if (layout == null && column != null) {
      throw new IllegalArgumentException(
          SparkOptionTable.DOCUMENT_COLUMN.name()
              + "='"
              + column
              + "' without pack or pad (expected: pack=LENGTH or pad=LENGTH beside it)");
    }
    if (layout != null && read.text(SparkOptionTable.TRANSFORMS) != null) {
      throw new IllegalArgumentException(
          "transforms with "
              + layout
              + " (expected: one of them; the token rows are made of the documents as stored)");
    }
    return layout;
  }

  /** Whether a state taken on other files is resumed anyway. */
  public boolean acceptChangedInput() {
    return acceptChangedInput;
  }
}
