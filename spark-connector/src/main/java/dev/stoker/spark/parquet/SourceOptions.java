package dev.stoker.spark.parquet;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.OnBadSample;
import dev.stoker.loader.OptionNames;
import dev.stoker.loader.Placement;
import dev.stoker.loader.state.BadStateException;
import dev.stoker.loader.state.LoaderState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import dev.stoker.spark.options.OptionLayer;
import dev.stoker.spark.options.OptionRegistry;
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
 * The options of one read through {@code format("stoker")}, checked on the driver. Names ignore
 * case, as Spark's do: the loader's knobs ({@link OptionNames#LOADER}), {@code worldSize}, the
 * source's own ({@link #EPOCH}, {@link #SHUFFLE_BUFFER}, {@code shape.<column>}), Spark's
 * {@code path}/{@code paths}, and Hadoop settings for this read (any other name with a dot, such
 * as {@code fs.s3a.endpoint}). Any other name is an error suggesting the closest known one.
 */
public final class SourceOptions {
  /** The epoch whose order is read, >= 0 (default 0). */
  public static final String EPOCH = "epoch";
  /** Rows of a rank's shuffle buffer, >= 1 (default: 8192, fewer for rows over 4 KiB). */
  public static final String SHUFFLE_BUFFER = "shuffleBuffer";
  /** Prefix of a tensor column's shape, e.g. {@code shape.image = 3,32,32}. */
  public static final String SHAPE_PREFIX = "shape.";
  /**
   * Whether the pages' checksums are verified where the files have them, {@code true} or
   * {@code false} (default true): a page whose bytes changed since it was written is then an
   * error, not values read silently.
   */
  public static final String VERIFY_CHECKSUMS = "verifyChecksums";

  /**
   * A state to resume from (a {@code stoker1:...} string, as {@code LoaderState.toString()} prints
   * it): the read is the rest of the state's epoch, split across {@code worldSize} ranks.
   */
  public static final String RESUME_FROM = "resumeFrom";
  /** Whether a state taken on other files is resumed anyway, {@code true} or {@code false}. */
  public static final String ACCEPT_CHANGED_INPUT = "acceptChangedInput";

  /** Spark's own key for {@code load(path)}. */
  public static final String PATH = "path";
  /** Spark's own key for {@code load(paths...)}, a JSON array. */
  public static final String PATHS = "paths";
  private static final List<String> OWN = List.of(EPOCH, SHUFFLE_BUFFER, VERIFY_CHECKSUMS, PATH,
      PATHS, RESUME_FROM, ACCEPT_CHANGED_INPUT);

  private final LoaderOptions loader;
  private final int worldSize;
  private final int epoch;
  private final Integer shuffleBuffer;
  private final boolean verifyChecksums;
  private final Map<String, int[]> shapes;
  private final Map<String, String> hadoop;
  private final List<String> paths;
  private final Set<String> given;
  private LoaderState resumeFrom;
  private boolean acceptChangedInput;

  private SourceOptions(LoaderOptions loader, int worldSize, int epoch, Integer shuffleBuffer,
      boolean verifyChecksums, Map<String, int[]> shapes, Map<String, String> hadoop,
      List<String> paths, Set<String> given) {
    this.loader = loader;
    this.worldSize = worldSize;
    this.epoch = epoch;
    this.shuffleBuffer = shuffleBuffer;
    this.verifyChecksums = verifyChecksums;
    this.shapes = shapes;
    this.hadoop = hadoop;
    this.paths = paths;
    this.given = given;
  }

  /** The defaults, for a read of {@code paths} that was given no options of Stoker's. */
  public static SourceOptions defaults(List<String> paths) {
    return new SourceOptions(LoaderOptions.builder().build(), 1, 0, null, true, Map.of(),
        Map.of(), List.copyOf(paths), Set.of());
  }

  /** The layers of the options a read takes. */
  public static final Set<OptionLayer> LAYERS =
      Collections.unmodifiableSet(EnumSet.of(OptionLayer.LOADER, OptionLayer.PLACEMENT,
          OptionLayer.SOURCE));

  /** As {@link #parse(Map, Map)}, without session settings. */
  static SourceOptions parse(Map<String, String> given) {
    return parse(given, Map.of());
  }

  /**
   * Parses Spark's option map, the session's {@code spark.stoker.*} settings ({@code session})
   * standing in for the options not given; every bad name or value is an
   * IllegalArgumentException.
   */
  static SourceOptions parse(Map<String, String> given, Map<String, String> session) {
    Set<String> explicit = givenNames(given.keySet());
    SourceOptions options = parseAll(OptionRegistry.resolve(given, session, LAYERS));
    SourceOptions out = new SourceOptions(options.loader, options.worldSize, options.epoch,
        options.shuffleBuffer, options.verifyChecksums, options.shapes, options.hadoop,
        options.paths, explicit);
    out.resumeFrom = options.resumeFrom;
    out.acceptChangedInput = options.acceptChangedInput;
    return out;
  }

  private static SourceOptions parseAll(Map<String, String> given) {
    Map<String, String> stoker = new LinkedHashMap<>();
    Map<String, int[]> shapes = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    Map<String, String> hadoop = new TreeMap<>();
    for (Map.Entry<String, String> e : given.entrySet()) {
      String key = e.getKey();
      String lower = key.toLowerCase(Locale.ROOT);
      if (lower.startsWith(SHAPE_PREFIX)) {
        if (shapes.put(key.substring(SHAPE_PREFIX.length()), shape(key, e.getValue())) != null) {
          throw new IllegalArgumentException(key + ": given twice in different case (expected: "
              + "once; option names ignore case)");
        }
      } else if (key.indexOf('.') >= 0) {
        hadoop.put(key, e.getValue());
      } else {
        stoker.put(key, e.getValue());
      }
    }
    LoaderOptions loader = LoaderOptions.fromMap(stoker, OWN);
    String rank = value(stoker, OptionNames.RANK);
    if (rank != null) {
      throw new IllegalArgumentException(OptionNames.RANK + ": '" + rank + "' (expected: no "
          + "rank; format(\"stoker\") reads every rank at once, partition r being rank r: give "
          + "worldSize only)");
    }
    if (loader.onBadSample() != OnBadSample.FAIL) {
      throw new IllegalArgumentException(OptionNames.ON_BAD_SAMPLE + ": '"
          + loader.onBadSample().label() + "' (expected: fail; format(\"stoker\") cannot skip a "
          + "row without unbalancing the ranks: fix or filter the data when writing it)");
    }
    int worldSize = Placement.fromMap(stoker).worldSize();
    String epoch = value(stoker, EPOCH);
    String buffer = value(stoker, SHUFFLE_BUFFER);
    LoaderState state = resumeFrom(value(stoker, RESUME_FROM));
    int epochNumber = epoch == null ? 0 : whole(EPOCH, epoch, 0);
    if (state != null && epoch != null && epochNumber != state.epoch()) {
      throw new IllegalArgumentException(EPOCH + ": '" + epoch + "' (expected: no epoch, or "
          + state.epoch() + ", the epoch of " + RESUME_FROM + ")");
    }
    SourceOptions options = new SourceOptions(loader, worldSize,
        state != null ? state.epoch() : epochNumber,
        buffer == null ? null : whole(SHUFFLE_BUFFER, buffer, 1),
        flag(VERIFY_CHECKSUMS, value(stoker, VERIFY_CHECKSUMS), true), Collections.unmodifiableMap(shapes), Collections.unmodifiableMap(hadoop),
        paths(stoker), givenNames(stoker.keySet()));
    options.resumeFrom = state;
    options.acceptChangedInput = flag(ACCEPT_CHANGED_INPUT,
        value(stoker, ACCEPT_CHANGED_INPUT), false);
    return options;
  }

  private static LoaderState resumeFrom(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return LoaderState.parse(text);
    } catch (BadStateException e) {
      throw new IllegalArgumentException(RESUME_FROM + ": " + e.getMessage(), e);
    }
  }

  /** The loader and placement options among {@code keys}, by their own names. */
  private static Set<String> givenNames(Set<String> keys) {
    Set<String> names = new LinkedHashSet<>();
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
   * The names of the loader's knobs (and {@code worldSize}) the read was given, as
   * {@link OptionNames} spells them: the rest are defaults.
   */
  public Set<String> given() {
    return given;
  }

  /** The value of {@code name} in {@code values}, matched ignoring case, stripped; or null. */
  private static String value(Map<String, String> values, String name) {
    for (Map.Entry<String, String> e : values.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name)) {
        return e.getValue() == null ? "" : e.getValue().strip();
      }
    }
    return null;
  }

  private static int whole(String name, String text, int least) {
    long value;
    try {
      value = Long.parseLong(text);
    } catch (NumberFormatException e) {
      value = Long.MIN_VALUE;
    }
    if (value < least || value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(name + ": '" + text + "' (expected: a whole number from "
          + least + " to " + Integer.MAX_VALUE + ")");
    }
    return (int) value;
  }

  /** {@code true} or {@code false} in any case; {@code fallback} when not given. */
  static boolean flag(String name, String text, boolean fallback) {
    if (text == null) {
      return fallback;
    }
    if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(text);
    }
    throw new IllegalArgumentException(name + ": '" + text + "' (expected: true or false)");
  }

  /** A shape such as {@code 3,32,32}, {@code [3, 32, 32]} or {@code 3x32x32}. */
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
        throw new IllegalArgumentException(key + ": '" + text + "' (expected: dimensions > 0 "
            + "separated by commas, e.g. 3,32,32, of at most " + Integer.MAX_VALUE
            + " values in all)");
      }
      dims[i] = (int) dim;
    }
    return dims;
  }

  /** Spark's {@code path} and {@code paths} (a JSON array, from {@code load(p1, p2, ...)}). */
  private static List<String> paths(Map<String, String> values) {
    List<String> paths = new ArrayList<>();
    String path = value(values, PATH);
    if (path != null && !path.isEmpty()) {
      paths.add(path);
    }
    String json = value(values, PATHS);
    if (json != null && !json.isEmpty()) {
      try {
        paths.addAll(Arrays.asList(new ObjectMapper().readValue(json, String[].class)));
      } catch (IOException e) {
        throw new IllegalArgumentException(PATHS + ": '" + json + "' (expected: a "
            + "JSON array of paths, as load(path, ...) sets it)", e);
      }
    }
    if (paths.isEmpty()) {
      throw new IllegalArgumentException("path: none given (expected: load(path) with a Parquet "
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

  /** Whether a state taken on other files is resumed anyway. */
  public boolean acceptChangedInput() {
    return acceptChangedInput;
  }
}
