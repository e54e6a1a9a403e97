package dev.stoker.spark.options;

import static dev.stoker.spark.options.OptionLayer.LOADER;
import static dev.stoker.spark.options.OptionLayer.PLACEMENT;
import static dev.stoker.spark.options.OptionLayer.RUN;
import static dev.stoker.spark.options.OptionLayer.SETTING;
import static dev.stoker.spark.options.OptionLayer.SOURCE;

import dev.stoker.loader.LoaderOptionTable;
import dev.stoker.loader.option.OptionValues;
import dev.stoker.loader.option.StokerOption;
import dev.stoker.loader.option.StokerOption.Check;
import dev.stoker.loader.option.ValueType;
import dev.stoker.loader.state.BadStateException;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.tokens.TokenOptions;
import dev.stoker.loader.transform.Transforms;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Every option of Stoker on Spark, each defined once with the layers that read it: the loader's
 * (from {@link LoaderOptionTable}, read by both the DataSource and the runner), then the
 * DataSource's and the runner's own, and last the Spark settings that are no option. {@link #ALL}
 * lists them in that order, the order of the reference page and of the names an error lists. The
 * enum-valued options ({@link #CACHE}, {@link #REBALANCE}) hold the label; the API's enums read
 * their constant from it.
 */
public final class SparkOptionTable {
  /** Each option as it is defined, with its layers; {@link #ALL} is its copy. */
  private static final List<OptionSpec> DEFINED = new ArrayList<>();

  static {
    for (StokerOption<?> knob : LoaderOptionTable.KNOBS) {
      add(knob, LOADER);
    }
  }

  /** The number of ranks: tasks of the barrier stage, one per GPU as a rule. */
  public static final StokerOption<Integer> WORLD_SIZE =
      add(LoaderOptionTable.WORLD_SIZE, PLACEMENT);

  public static final StokerOption<Integer> EPOCH =
      add(
          StokerOption.builder("epoch", wholeFrom(0))
              .values("int >= 0")
              .defaultValue(0)
              .doc("The epoch whose order the read yields; a resumed read's is its state's.")
              .build(),
          SOURCE);

  public static final StokerOption<Integer> SHUFFLE_BUFFER =
      add(
          StokerOption.builder("shuffleBuffer", wholeFrom(1))
              .values("int > 0 (rows)")
              .defaultText("rows of 32 MiB, at most 8192")
              .doc("Rows of a rank shuffled together (without shuffle: staged together).")
              .build(),
          SOURCE);

  public static final StokerOption<Integer> GLOBAL_BATCH_SIZE =
      add(
          StokerOption.builder("globalBatchSize", wholeFrom(1))
              .values("int > 0 (rows), a multiple of worldSize")
              .defaultText("(none: batchSize per rank)")
              .doc(
                  "Rows of each step over all ranks, instead of batchSize: each rank's batch is "
                      + "its share, and the global batches are the same on any worldSize that "
                      + "divides orderStreams.")
              .build(),
          SOURCE);

  public static final StokerOption<Integer> ORDER_STREAMS =
      add(
          StokerOption.builder("orderStreams", wholeFrom(1))
              .values("1 to 256, a multiple of worldSize")
              .defaultValue(24)
              .doc(
                  "With globalBatchSize: the streams the epoch's order is cut into, each shuffled "
                      + "within shuffleBuffer / orderStreams rows; a rank reads worldSize's share.")
              .build(),
          SOURCE);

  /** The family {@code shape.<column>}: a tensor column's shape, e.g. {@code 3,32,32}. */
  public static final StokerOption<int[]> SHAPE =
      add(
          StokerOption.builder(
                  "shape.", ValueType.of(SparkOptionTable::shape, SparkOptionTable::shapeText))
              .values("shape (3,32,32)")
              .defaultText("(from the files)")
              .doc("The shape of a tensor column's values in each row, e.g. shape.image=3,32,32.")
              .build(),
          SOURCE);

  public static final StokerOption<Boolean> VERIFY_CHECKSUMS =
      add(
          StokerOption.builder("verifyChecksums", ValueType.BOOLEAN)
              .values("true|false")
              .defaultValue(true)
              .doc(
                  "Verify Parquet page checksums where the files have them (a local file's "
                      + "pages, whose every byte its Hadoop checksum file already verified as it "
                      + "was read, are not summed twice); false saves a CRC-32 over every page "
                      + "read.")
              .build(),
          SOURCE,
          RUN);

  public static final StokerOption<LoaderState> RESUME_FROM =
      add(
          StokerOption.builder(
                  "resumeFrom", ValueType.of(SparkOptionTable::state, LoaderState::toString))
              .values("a state (stoker1:...)")
              .defaultText("(none: a fresh epoch)")
              .doc(
                  "A loader state, as its toString() prints it: the read is the rest of its epoch, "
                      + "split across worldSize ranks.")
              .build(),
          SOURCE);

  public static final StokerOption<Boolean> ACCEPT_CHANGED_INPUT =
      add(
          StokerOption.builder("acceptChangedInput", ValueType.BOOLEAN)
              .values("true|false")
              .defaultValue(false)
              .doc("Resume a state taken on other files anyway.")
              .build(),
          SOURCE);

  /** A per-sample transform's spec: {@code class:NAME}, or built-ins joined by {@code |}. */
  public static final StokerOption<String> TRANSFORMS =
      add(
          StokerOption.builder("transforms", ValueType.TEXT)
              .values("a spec (class:NAME, or built-ins joined by |)")
              .check(SparkOptionTable::transformSpec)
              .defaultText("(none)")
              .doc(
                  "The transform run on every sample in the workers; needed to read a binary "
                      + "column of varying length, e.g. encoded images.")
              .build(),
          SOURCE);

  /** The table format of the read's path or {@link #TABLE}: {@code delta} or {@code iceberg}. */
  public static final StokerOption<String> TABLE_FORMAT =
      add(
          StokerOption.builder("tableFormat", ValueType.choice("delta", "iceberg"))
              .values("delta|iceberg")
              .defaultText("(none: Parquet files)")
              .doc(
                  "Read a Delta or Iceberg table (its path, or table): the snapshot's data files, "
                      + "without the rows it deleted.")
              .build(),
          SOURCE);

  /**
   * The column of class labels whose mix in each step's batches the order's measure reports, beside
   * a random permutation's.
   */
  public static final StokerOption<String> LABEL_COLUMN =
      add(
          StokerOption.builder("labelColumn", ValueType.TEXT)
              .values("a column name: int or bigint class indices 0 to 65,535")
              .defaultText("(none)")
              .doc(
                  "Measure how far each step's labels are from the input's mix (the mean "
                      + "total-variation distance, beside a random permutation's), in the order's "
                      + "measure on the report and the Stoker page; read once on the driver, for "
                      + "inputs of up to 16,777,216 rows.")
              .build(),
          SOURCE);

  /** A table read by its name in the session's catalogs, in place of a path. */
  public static final StokerOption<String> TABLE =
      add(
          StokerOption.builder("table", ValueType.TEXT)
              .values("a table name (db.name, catalog.db.name)")
              .defaultText("(none: the path)")
              .doc("A table of tableFormat by its name, in place of load(path).")
              .build(),
          SOURCE);

  /** The version (Delta) or snapshot id (Iceberg) of the table read. */
  public static final StokerOption<Long> VERSION_AS_OF =
      add(
          StokerOption.builder("versionAsOf", ValueType.LONG)
              .values("a Delta version or an Iceberg snapshot id")
              .defaultText("(the table's current one)")
              .doc("Time travel: read the table as it was at this version or snapshot.")
              .build(),
          SOURCE);

  /** The column of tokenized documents that {@link #PACK} or {@link #PAD} reads. */
  public static final StokerOption<String> DOCUMENT_COLUMN =
      token(
          "documentColumn",
          "a column name",
          "the one list of integers",
          "The column of documents (array<int>, array<bigint>, array<smallint> of token ids) that "
              + "pack or pad reads.");

  public static final StokerOption<String> PACK =
      token(
          TokenOptions.PACK,
          "int > 0 (tokens)",
          "(none)",
          "Concatenate the epoch's documents and cut them into rows of this many tokens, with "
              + "position_ids and document_ids; batchSize counts rows.");

  public static final StokerOption<String> PAD =
      token(
          TokenOptions.PAD,
          "int > 0 (tokens)",
          "(none)",
          "One document per row of this many tokens, padded, with attention_mask.");

  public static final StokerOption<String> EOD_TOKEN =
      token(
          TokenOptions.EOD_TOKEN,
          "int >= 0 (a token id)",
          "(none)",
          "The id appended after every document.");

  public static final StokerOption<String> PAD_TOKEN =
      token(TokenOptions.PAD_TOKEN, "int (a token id)", "0", "The id of padding (pad).");

  public static final StokerOption<String> SHIFT_LABELS =
      token(
          TokenOptions.SHIFT_LABELS,
          "true|false",
          "false",
          "Add labels: each token's successor in its document, -100 where it has none.");

  public static final StokerOption<String> DOCUMENT_BOUNDARIES =
      token(
          TokenOptions.DOCUMENT_BOUNDARIES,
          "documentIds|cuSeqlens",
          "documentIds",
          "How packed rows mark documents: document_ids [length], or cu_seqlens [length + 1] "
              + "for variable-length attention kernels.");

  public static final StokerOption<String> LONG_DOCUMENTS =
      token(
          TokenOptions.LONG_DOCUMENTS,
          "continue|cut (pack), truncate|split (pad)",
          "continue (pack), truncate (pad)",
          "What becomes of a document longer than a row.");

  public static final StokerOption<String> VOCAB_SIZE =
      token(
          TokenOptions.VOCAB_SIZE,
          "int > 0",
          "(no check)",
          "Token ids must lie in [0, vocabSize); another id is an error naming the document.");

  public static final StokerOption<String> MAX_DOCUMENT_TOKENS =
      token(
          TokenOptions.MAX_DOCUMENT_TOKENS,
          "int > 0",
          "(no check)",
          "A longer document is an error naming it.");

  public static final StokerOption<String> TOKENIZER =
      token(
          TokenOptions.TOKENIZER,
          "r50k_base|p50k_base|p50k_edit|cl100k_base|o200k_base",
          "(none: the column holds ids)",
          "Tokenize a text column with this byte-pair encoding (the vocabularies ship in the jar).");

  public static final StokerOption<Long> MAX_SHARD_BYTES =
      add(
          StokerOption.builder("maxShardBytes", ValueType.BYTES)
              .values("size (512m, 64g)")
              .check(Check.positive())
              .defaultValue(64L << 30)
              .doc("The most bytes one rank's shard may take on its executor's local disk.")
              .build(),
          RUN);

  public static final StokerOption<String> SHARD_DIR =
      add(
          StokerOption.builder("shardDir", ValueType.TEXT)
              .values("a local folder")
              .check(SparkOptionTable::folder)
              .defaultText("(Spark's local directories)")
              .doc("The folder shards are cached in, on every executor.")
              .build(),
          RUN);

  /** The label of a {@code CacheMode}. */
  public static final StokerOption<String> CACHE =
      add(
          StokerOption.builder("cache", ValueType.choice("auto", "memory", "disk", "none"))
              .values("auto|memory|disk|none")
              .check(Check.nonNull())
              .defaultValue("auto")
              .doc(
                  "Whether a rank streaming Parquet keeps a shard cache for later epochs: where it "
                      + "pays (in memory where it fits cacheMemory, else on disk), always in "
                      + "memory, always on disk, or never.")
              .build(),
          RUN);

  /** {@link #CACHE_MEMORY}'s value for its default: a share of the memory free, found per rank. */
  public static final long CACHE_MEMORY_AUTO = -1;

  public static final StokerOption<Long> CACHE_MEMORY =
      add(
          StokerOption.builder(
                  "cacheMemory",
                  ValueType.of(SparkOptionTable::readCacheMemory, SparkOptionTable::memoryText))
              .values("auto, or a size (2g; 0 = never)")
              .check(SparkOptionTable::checkCacheMemory)
              .defaultValue(CACHE_MEMORY_AUTO)
              .doc(
                  "The most bytes of a rank's shard cache kept in memory (a memory-backed "
                      + "folder, /dev/shm) rather than on the local disk; auto: a quarter of the "
                      + "memory its machine (or container) has free when the rank starts.")
              .build(),
          RUN);

  /** The label of an {@code EpochOrder}. */
  public static final StokerOption<String> EPOCH_ORDER =
      add(
          StokerOption.builder("epochOrder", ValueType.choice("rank", "global"))
              .values("rank|global")
              .check(Check.nonNull())
              .defaultValue("rank")
              .doc(
                  "The rows of later epochs (a run's streaming Parquet, the Python package's "
                      + "after its read's): each rank's own, shuffled within it, or every epoch "
                      + "planned again over the whole input, rows moving between ranks without a "
                      + "new stage.")
              .build(),
          SOURCE,
          RUN);

  public static final StokerOption<Integer> EPOCHS =
      add(
          StokerOption.builder(
                  "epochs", ValueType.of(SparkOptionTable::readEpochs, String::valueOf))
              .values("int >= 0, 0 = not known")
              .check(SparkOptionTable::checkEpochs)
              .defaultValue(0)
              .doc(
                  "The epochs the rank function runs, when known: with cache=auto, one epoch "
                      + "writes no cache, more write it while the first streams.")
              .build(),
          RUN);

  /** The label of a {@code Rebalance}. */
  public static final StokerOption<String> REBALANCE =
      add(
          StokerOption.builder("rebalance", ValueType.choice("auto", "always"))
              .values("auto|always")
              .check(Check.nonNull())
              .defaultValue("auto")
              .doc("The rows path's shuffle: none when the input is already balanced, or always.")
              .build(),
          RUN);

  public static final StokerOption<Duration> PROGRESS_INTERVAL =
      add(
          StokerOption.builder("progressInterval", ValueType.DURATION)
              .values("duration > 0")
              .check(SparkOptionTable::interval)
              .defaultValue(Duration.ofSeconds(1))
              .doc("How often each rank updates its progress accumulators.")
              .build(),
          RUN);

  public static final StokerOption<Duration> COLLECTIVE_TIMEOUT =
      add(
          StokerOption.builder("collectiveTimeout", ValueType.DURATION)
              .values("duration, 0 = forever")
              .check(SparkOptionTable::collectiveWait)
              .defaultValue(Duration.ofMinutes(10))
              .doc(
                  "Longest wait of a rank's collective call (all-reduce, allGather, barrier) for "
                      + "its peers before a clear error; 0 waits until the task is killed.")
              .build(),
          RUN);

  /** The network interface the collective listens on, e.g. {@code eth1}. */
  public static final StokerOption<String> COLLECTIVE_INTERFACE =
      add(
          StokerOption.builder("collective.interface", ValueType.TEXT)
              .values("a network interface (eth1)")
              .defaultText("(the route to the driver)")
              .doc(
                  "The interface every executor's ranks listen on for their peers (its first IPv4 "
                      + "address).")
              .build(),
          SETTING);

  /** The ports the collective may listen on, {@code first-last}. */
  public static final StokerOption<String> COLLECTIVE_PORTS =
      add(
          StokerOption.builder("collective.ports", ValueType.TEXT)
              .values("ports first-last (41000-41015)")
              .defaultValue("0")
              .doc(
                  "The ports a rank may listen on for its peers, the first free one taken; 0 lets "
                      + "the system choose.")
              .build(),
          SETTING);

  /** The shared-memory folder of a Python rank's slot file. */
  public static final StokerOption<String> PYTHON_SHM_DIR =
      add(
          StokerOption.builder("python.shmDir", ValueType.TEXT)
              .values("a folder")
              .defaultValue("/dev/shm")
              .doc("The shared-memory folder of each Python rank's slot file.")
              .build(),
          SETTING);

  /** Every option with its layers, the loader's knobs first. */
  public static final List<OptionSpec> ALL = List.copyOf(DEFINED);

  private SparkOptionTable() {}

  /** A token-rows option: read as text here, its value checked with the others it goes with. */
  private static StokerOption<String> token(
      String name, String values, String defaultText, String doc) {
    return add(
        StokerOption.builder(name, ValueType.TEXT)
            .values(values)
            .defaultText(defaultText)
            .doc(doc)
            .build(),
        SOURCE);
  }

  private static <T> StokerOption<T> add(
      StokerOption<T> option, OptionLayer first, OptionLayer... rest) {
    DEFINED.add(new OptionSpec(option, EnumSet.of(first, rest)));
    return option;
  }

  /** A whole number from {@code least} to {@link Integer#MAX_VALUE}. */
  private static ValueType<Integer> wholeFrom(int least) {
    return ValueType.of(
        (name, text) -> {
          long value;
          try {
            value = Long.parseLong(text);
          } catch (NumberFormatException e) {
            value = Long.MIN_VALUE;
          }
          if (value < least || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                name
                    + ": '"
                    + text
                    + "' (expected: a whole number "
                    + "from "
                    + least
                    + " to "
                    + Integer.MAX_VALUE
                    + ")");
          }
          return (int) value;
        },
        String::valueOf);
  }

  private static Long readCacheMemory(String name, String text) {
    return text.trim().equalsIgnoreCase("auto")
        ? CACHE_MEMORY_AUTO
        : OptionValues.bytes(name, text.trim());
  }

  private static String memoryText(Long value) {
    return value == CACHE_MEMORY_AUTO ? "auto" : OptionValues.bytesText(value);
  }

  private static Long checkCacheMemory(String name, Long value) {
    if (value == null || value < 0 && value != CACHE_MEMORY_AUTO) {
      throw new IllegalArgumentException(
          name + ": " + value + " (expected: auto, or a size >= 0; 0 keeps no cache in memory)");
    }
    return value;
  }

  private static Integer readEpochs(String name, String text) {
    int value;
    try {
      value = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      value = -1;
    }
    if (value < 0) {
      throw new IllegalArgumentException(
          name
              + ": '"
              + text
              + "' (expected: a whole number "
              + "from 0, the epochs the rank function runs; 0 when not known)");
    }
    return value;
  }

  private static Integer checkEpochs(String name, Integer value) {
    if (value < 0) {
      throw new IllegalArgumentException(
          name + ": " + value + " (expected: >= 0; 0 when not known)");
    }
    return value;
  }

  /** Null (Spark's local directories) or a folder, stripped of surrounding whitespace. */
  private static String folder(String name, String value) {
    if (value != null && value.isBlank()) {
      throw new IllegalArgumentException(
          name + ": '" + value + "' (expected: a folder on the executors' local disk)");
    }
    return value == null ? null : value.strip();
  }

  private static Duration interval(String name, Duration value) {
    if (value == null) {
      throw new NullPointerException(name);
    }
    if (value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException(name + ": " + value.toMillis() + " ms (expected: > 0)");
    }
    return value;
  }

  private static Duration collectiveWait(String name, Duration value) {
    if (value == null) {
      throw new NullPointerException(name);
    }
    if (value.isNegative()) {
      throw new IllegalArgumentException(
          name + ": " + value.toMillis() + " ms (expected: >= 0; 0 waits forever)");
    }
    return value;
  }

  /**
   * Null, or a spec that {@link Transforms#parse} makes a transform of (on the driver, so that a
   * bad spec or a missing class fails the read or run before any task), stripped.
   */
  private static String transformSpec(String name, String value) {
    if (value == null) {
      return null;
    }
    try {
      Transforms.parse(value);
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      throw new IllegalArgumentException(
          message.startsWith(name + ":") ? message : name + ": " + message, e);
    }
    return value.strip();
  }

  /** A state as {@code LoaderState.toString()} prints it; empty text is none. */
  private static LoaderState state(String name, String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return LoaderState.parse(text);
    } catch (BadStateException e) {
      throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
    }
  }

  /**
   * A shape such as {@code 3,32,32}, {@code [3, 32, 32]} or {@code 3x32x32}; errors name the
   * column's key ({@code shape.image}).
   */
  private static int[] shape(String key, String text) {
    String body = text == null ? "" : text.strip();
    if (body.startsWith("[") && body.endsWith("]") || body.startsWith("(") && body.endsWith(")")) {
      body = body.substring(1, body.length() - 1);
    }
    String[] parts = body.split("\\s*[,xX]\\s*", -1);
    int[] dims = new int[parts.length];
    long product = 1;
    for (int i = 0; i < parts.length; i++) {
      long dim;
      try {
        dim = Long.parseLong(parts[i].strip());
      } catch (NumberFormatException e) {
        dim = -1;
      }
      product *= Math.max(dim, 1);
      if (dim <= 0 || product > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            key
                + ": '"
                + text
                + "' (expected: dimensions > 0 "
                + "separated by commas, e.g. 3,32,32, of at most "
                + Integer.MAX_VALUE
                + " values in all)");
      }
      dims[i] = (int) dim;
    }
    return dims;
  }

  private static String shapeText(int[] dims) {
    return IntStream.of(dims).mapToObj(Integer::toString).collect(Collectors.joining(","));
  }
}
