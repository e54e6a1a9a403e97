package dev.stoker.spark;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.OptionNames;
import dev.stoker.loader.Placement;
import dev.stoker.spark.options.OptionLayer;
import dev.stoker.spark.options.OptionRegistry;
import dev.stoker.spark.rows.InputColumns;
import dev.stoker.spark.run.StokerRun;
import dev.stoker.spark.shard.Normalization;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Runs a function on every rank of a Spark barrier stage, each with a {@link
 * dev.stoker.loader.DataLoader} over its share of a DataFrame: Spark's answer to PyTorch's DDP with
 * a DistributedSampler.
 *
 * <pre>{@code
 * TrainingResult<Double> run = StokerSpark.on(df)
 *     .tensor("image", DType.FLOAT32, 1, 28, 28)
 *     .scalar("label", DType.INT64)
 *     .options(LoaderOptions.builder().batchSize(64).shuffle(true).seed(42).dropLast(true)
 *         .numWorkers(2).persistentWorkers(true).build())
 *     .worldSize(2)
 *     .run((rank, loader) -> {
 *       for (int epoch = 0; epoch < 10; epoch++) {
 *         for (Batch batch : loader.epoch(epoch)) { ... }
 *       }
 *       return loss;
 *     });
 * }</pre>
 *
 * <p>Rank {@code r} is partition {@code r} of the barrier stage; the stage fails and is retried as
 * a whole, and a retried rank sees the same batches. A plain Parquet scan or a {@code
 * format("stoker")} read is planned by row group from its footers, and each rank streams its exact
 * share from the files into its one loader (keeping a shard cache for later epochs as {@link
 * SparkOptionNames#CACHE} says); the rows of any other DataFrame reach the ranks in one shuffle
 * that leaves their counts at most one apart (none when the input already has one partition per
 * rank with such counts), and each rank reads them once into a shard on its executor's local disk,
 * from which its loader serves the epochs. With {@code dropLast} every rank yields the same number
 * of full batches. Options come typed ({@link #options(LoaderOptions)}) or as Spark-style strings
 * ({@link #option(String, String)}) with the loader's names and errors, plus those of {@link
 * SparkOptionNames}; the session's {@code spark.stoker.<name>} settings stand in for string options
 * not given, and a {@code format("stoker")} read's options for those the run was not given. Columns
 * are checked against the DataFrame where they are declared, string options when the run starts,
 * before any Spark job.
 *
 * @see dev.stoker.loader.DataLoader
 */
public final class StokerSpark {
  /** The layers of the options a run takes. */
  private static final Set<OptionLayer> LAYERS =
      EnumSet.of(OptionLayer.LOADER, OptionLayer.PLACEMENT, OptionLayer.RUN);

  private final Dataset<Row> input;
  private final List<Field> fields = new ArrayList<>();
  private final Map<String, String> strings = new LinkedHashMap<>();
  private final Map<String, Normalization> normalizations = new LinkedHashMap<>();
  private LoaderOptions options;
  private SparkRunOptions runOptions;
  private Integer worldSize;
  private DeviceFactory devices = DeviceFactory.CPU;
  private Consumer<RankProgress> progress;

  private StokerSpark(Dataset<Row> input) {
    this.input = input;
  }

  /** A run over {@code input}: any DataFrame with the columns to be declared. */
  public static StokerSpark on(Dataset<Row> input) {
    return new StokerSpark(Objects.requireNonNull(input, "input"));
  }

  /**
   * Column {@code column} as a tensor of {@code shape}: {@code array<float|double|int|bigint>} for
   * float32, float64, int32, int64, of exactly the shape's number of values per row, or {@code
   * binary} of that many bytes for uint8.
   *
   * @throws IllegalArgumentException if the column is missing or of another type
   */
  public StokerSpark tensor(String column, DType dtype, int... shape) {
    if (shape.length == 0) {
      throw new IllegalArgumentException(
          "tensor '"
              + column
              + "': shape [] (expected: at least "
              + "one dimension; declare a single value with scalar(...))");
    }
    return declare(Field.of(column, dtype, shape));
  }

  /**
   * Column {@code column} as one value per row: a tinyint, smallint, int, bigint, float or double
   * column whose values {@code dtype} holds exactly (an integer column for an integer dtype).
   *
   * @throws IllegalArgumentException if the column is missing or of another type
   */
  public StokerSpark scalar(String column, DType dtype) {
    return declare(Field.scalar(column, dtype));
  }

  private StokerSpark declare(Field field) {
    for (Field declared : fields) {
      if (declared.name().equals(field.name())) {
        throw new IllegalArgumentException(
            "column '"
                + field.name()
                + "': declared twice, as "
                + declared
                + " and "
                + field
                + " (expected: once)");
      }
    }
    InputColumns.check(field, input.schema());
    fields.add(field);
    return this;
  }

  /**
   * Delivers tensor column {@code column} to the ranks' loaders as float32 of the same shape,
   * normalized per channel (the first dimension of its shape): {@code (x / 255 - mean[c]) / std[c]}
   * for a uint8 column, as torchvision's {@code ToTensor()} then {@code Normalize(mean, std)} do on
   * float32, and {@code (x - mean[c]) / std[c]} for float32 and float64 columns. The loader
   * converts as it writes each sample, so the shard on disk keeps the raw values (a byte a pixel)
   * and the batch needs no second pass. Give one mean and one std per channel, or one for every
   * channel. May come before or after the column's {@code tensor(...)}; the column is checked when
   * the run starts.
   *
   * @throws IllegalArgumentException if a mean is not finite, a std is not finite and &gt; 0, or
   *     the column is normalized twice
   */
  public StokerSpark normalize(String column, double[] mean, double[] std) {
    Normalization normalization = Normalization.of(column, mean, std);
    Normalization earlier = normalizations.putIfAbsent(column, normalization);
    if (earlier != null) {
      throw new IllegalArgumentException(
          normalization
              + ": column '"
              + column
              + "' already "
              + "has "
              + earlier
              + " (expected: one normalize(...) per column)");
    }
    return this;
  }

  /** The loader's knobs, typed; not together with loader knobs given as strings. */
  public StokerSpark options(LoaderOptions value) {
    options = Objects.requireNonNull(value, "options");
    return this;
  }

  /**
   * One Spark-style option: a loader knob ({@code batchSize}, {@code shuffle}, ...), or one of
   * {@link SparkOptionNames}; names ignore case. The values are read, and unknown names refused
   * with a suggestion, when the run starts.
   */
  public StokerSpark option(String name, String value) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("option: '" + name + "' (expected: a name)");
    }
    if (name.equalsIgnoreCase(OptionNames.RANK)) {
      throw new IllegalArgumentException(
          OptionNames.RANK
              + ": '"
              + value
              + "' (expected: no "
              + "rank option; each rank is the partition id of its barrier task)");
    }
    strings.put(name, value);
    return this;
  }

  /** {@link #option(String, String)} for each entry of {@code values}. */
  public StokerSpark options(Map<String, String> values) {
    values.forEach(this::option);
    return this;
  }

  /** The options of the run beyond the loader's, typed; not together with them as strings. */
  public StokerSpark runOptions(SparkRunOptions value) {
    runOptions = Objects.requireNonNull(value, "runOptions");
    return this;
  }

  /** The number of ranks: tasks of the barrier stage, each needing a task slot (and a GPU). */
  public StokerSpark worldSize(int ranks) {
    if (ranks <= 0) {
      throw new IllegalArgumentException(
          OptionNames.WORLD_SIZE + ": " + ranks + " (expected: > 0, the number of ranks)");
    }
    worldSize = ranks;
    return this;
  }

  /** How a rank's GPU becomes its device (default: {@link DeviceFactory#CPU}). */
  public StokerSpark devices(DeviceFactory factory) {
    devices = Objects.requireNonNull(factory, "devices");
    return this;
  }

  /**
   * Called on the driver, on Spark's listener thread, with each rank's progress while the ranks run
   * (with every executor heartbeat) and once more when a rank's task ends. Must be quick.
   */
  public StokerSpark onProgress(Consumer<RankProgress> listener) {
    progress = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /**
   * Runs {@code function} on every rank and returns what each returned, in rank order, with the
   * load report. Blocks until every rank is done.
   *
   * @throws IllegalArgumentException for a bad option, or an input that cannot be loaded as
   *     declared (the message names the column, the row and what was expected)
   * @throws org.apache.spark.SparkException if the barrier stage failed more often than Spark
   *     retries it
   */
  public <R> TrainingResult<R> run(RankFunction<R> function) {
    Objects.requireNonNull(function, "function");
    if (fields.isEmpty()) {
      throw new IllegalArgumentException(
          "columns: none declared (expected: at least one " + "tensor(...) or scalar(...))");
    }
    Map<String, String> resolved =
        OptionRegistry.resolve(
            strings, OptionRegistry.stokerSettings(input.sparkSession()), LAYERS);
    LoaderOptions loader = loaderOptions(resolved);
    Set<String> given =
        options != null ? StokerRun.chosen(options) : StokerRun.named(strings.keySet());
    SparkRunOptions run = runOptions(resolved);
    Integer ranks = worldSize(resolved);
    checkSerializable("function", function);
    checkSerializable("devices", devices);
    List<Normalization> normalized = normalizations();
    return new StokerRun(input, List.copyOf(fields), normalized, loader, given, run, ranks, devices)
        .run(function, progress);
  }

  /** The normalizations, each checked against its declared column. */
  private List<Normalization> normalizations() {
    List<Normalization> checked = new ArrayList<>();
    for (Normalization normalization : normalizations.values()) {
      Field field =
          fields.stream()
              .filter(f -> f.name().equals(normalization.column()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "normalize '"
                              + normalization.column()
                              + "': not a declared column (declared: "
                              + fields.stream().map(Field::name).toList()
                              + "; expected: a column declared with "
                              + "tensor(...))"));
      normalization.check(field);
      checked.add(normalization);
    }
    return checked;
  }

  /** The loader's knobs: typed, or from the strings over the session's settings. */
  private LoaderOptions loaderOptions(Map<String, String> resolved) {
    LoaderOptions fromStrings = LoaderOptions.fromMap(resolved, SparkOptionNames.ACCEPTED);
    Map<String, String> knobs = matching(OptionNames.LOADER);
    if (options != null && !knobs.isEmpty()) {
      throw new IllegalArgumentException(
          "options: "
              + knobs.keySet()
              + " as strings and "
              + "LoaderOptions too (expected: the loader's knobs one way only)");
    }
    return options != null ? options : fromStrings;
  }

  /** The run's options: typed, or from the strings over the session's settings. */
  private SparkRunOptions runOptions(Map<String, String> resolved) {
    Map<String, String> own = matching(SparkOptionNames.ACCEPTED);
    if (runOptions != null && !own.isEmpty()) {
      throw new IllegalArgumentException(
          "options: "
              + own.keySet()
              + " as strings and "
              + "SparkRunOptions too (expected: the run's options one way only)");
    }
    return runOptions != null ? runOptions : SparkRunOptions.fromMap(resolved);
  }

  /**
   * The number of ranks given (or set for the session), or null (a {@code format("stoker")} read
   * may give it).
   */
  private Integer worldSize(Map<String, String> resolved) {
    Map<String, String> given = matching(resolved, List.of(OptionNames.WORLD_SIZE));
    Integer fromString =
        given.isEmpty()
            ? null
            : Placement.fromMap(Map.of(OptionNames.WORLD_SIZE, given.values().iterator().next()))
                .worldSize();
    if (fromString != null && worldSize != null && !fromString.equals(worldSize)) {
      throw new IllegalArgumentException(
          OptionNames.WORLD_SIZE
              + ": "
              + worldSize
              + " and '"
              + fromString
              + "' as a string (expected: one number of ranks)");
    }
    return worldSize != null ? worldSize : fromString;
  }

  /** The string options whose names are among {@code names}, ignoring case. */
  private Map<String, String> matching(List<String> names) {
    return matching(strings, names);
  }

  private static Map<String, String> matching(Map<String, String> values, List<String> names) {
    Map<String, String> found = new LinkedHashMap<>();
    values.forEach(
        (key, value) -> {
          for (String name : names) {
            if (name.toLowerCase(Locale.ROOT).equals(key.toLowerCase(Locale.ROOT))) {
              found.put(key, value);
            }
          }
        });
    return found;
  }

  private static void checkSerializable(String what, Object value) {
    try (ObjectOutputStream out = new ObjectOutputStream(new ByteArrayOutputStream())) {
      out.writeObject(value);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          what
              + ": "
              + value.getClass().getName()
              + " is not "
              + "serializable: "
              + e
              + " (expected: a serializable function; a lambda is, unless it "
              + "captures something that is not, such as the SparkSession or a DataFrame)",
          e);
    }
  }
}
