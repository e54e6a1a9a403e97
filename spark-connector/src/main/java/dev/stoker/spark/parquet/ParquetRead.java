package dev.stoker.spark.parquet;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderConfig;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Placement;
import dev.stoker.loader.Schema;
import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.state.InputFingerprint;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.tokens.TokenLayout;
import dev.stoker.loader.transform.Transforms;
import dev.stoker.spark.options.SparkOptionTable;
import dev.stoker.spark.parquet.ParquetFile.ColumnStats;
import dev.stoker.spark.parquet.ParquetFile.RowGroup;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The columns of a dataset that a read loads, ready to be planned for any number of ranks: what
 * {@code format("stoker")}'s scan and the runner both plan from, so that both cut the same rows
 * into the same ranks for the same options.
 */
public final class ParquetRead {
  /** Most rows of the default shuffle buffer. */
  public static final int WINDOW_ROWS = 8192;

  /** Most bytes of the default shuffle buffer, and of the Parquet reader's batch. */
  public static final long WINDOW_BYTES = 32L << 20;

  private final SourceDataset dataset;
  private final List<SourceColumn> selected;
  private final List<ColumnSpec> columns;

  /** The transform's spec, or null. */
  private final String transforms;

  /** With a transform or token rows, the columns of the output the read yields; else null. */
  private final StructType delivered;

  /** The token rows made of the one column read, or null. */
  private final TokenLayout tokens;

  private ParquetRead(
      SourceDataset dataset, List<SourceColumn> selected, List<ColumnSpec> columns) {
    this(dataset, selected, columns, null, null);
  }

  private ParquetRead(
      SourceDataset dataset,
      List<SourceColumn> selected,
      List<ColumnSpec> columns,
      String transforms,
      StructType delivered) {
    this(dataset, selected, columns, transforms, delivered, null);
  }

  private ParquetRead(
      SourceDataset dataset,
      List<SourceColumn> selected,
      List<ColumnSpec> columns,
      String transforms,
      StructType delivered,
      TokenLayout tokens) {
    this.tokens = tokens;
    this.dataset = dataset;
    this.selected = List.copyOf(selected);
    this.columns = List.copyOf(columns);
    this.transforms = transforms;
    this.delivered = delivered;
  }

  /**
   * The columns of {@code required}, shaped by the read's {@code shape.*} options; with the read's
   * {@code transforms}, every column the source can read is the transform's input (a binary column
   * of no fixed length as variable-length bytes, a list of integers without a shape as
   * variable-length int32 or int64 values) and {@code required} is of its output.
   */
  public static ParquetRead of(SourceDataset dataset, StructType required) {
    String transforms = dataset.options().transforms();
    if (transforms != null) {
      return transformed(dataset, transforms, required);
    }
    TokenLayout layout = dataset.options().tokens();
    if (layout != null) {
      TokenSchema.Documents documents = TokenSchema.documents(dataset);
      StructType output = TokenSchema.sparkSchema(layout, documents.spec());
      TransformedSchema.checkRequired(required, output, layout.toString());
      return new ParquetRead(
          dataset, List.of(documents.column()), List.of(documents.spec()), null, required, layout);
    }
    List<SourceColumn> selected = dataset.schema().select(required);
    return new ParquetRead(dataset, selected, TensorShapes.resolve(selected, dataset));
  }

  /**
   * The columns {@code fields} declare, in their order and with their shapes, as stored: if every
   * one holds as many values per row as its field, of its field's dtype or one that widens to it
   * exactly (int32 to int64, float32 to float64, which the reader's caller converts); else null,
   * with the reason given to {@code why}.
   *
   * @throws IllegalArgumentException if the footers say that a column holds nulls
   */
  public static ParquetRead declared(SourceDataset dataset, List<Field> fields, StringBuilder why) {
    StructType sparkSchema = dataset.schema().sparkSchema();
    List<StructField> wanted = new ArrayList<>();
    for (Field field : fields) {
      if (!Arrays.asList(sparkSchema.fieldNames()).contains(field.name())) {
        why.append("column '").append(field.name()).append("' is not in the files");
        return null;
      }
      wanted.add(new StructField(field.name(), DataTypes.NullType, true, Metadata.empty()));
    }
    List<SourceColumn> selected;
    List<ColumnSpec> stored;
    try {
      selected = dataset.schema().select(new StructType(wanted.toArray(StructField[]::new)));
    } catch (IllegalArgumentException e) {
      why.append(e.getMessage());
      return null;
    }
    TensorShapes.checkNulls(selected, dataset.files());
    try {
      stored = TensorShapes.resolve(selected, dataset);
    } catch (IllegalArgumentException e) {
      why.append(e.getMessage());
      return null;
    }
    List<ColumnSpec> columns = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      ColumnSpec column = stored.get(i);
      if (!(field.dtype() == column.dtype() || widens(column.dtype(), field.dtype()))
          || field.elements() != column.elements()) {
        why.append(
            String.format(
                "column '%s' is stored as %d %s value(s) per row, declared as " + "%s",
                field.name(), column.elements(), column.dtype().label(), field));
        return null;
      }
      columns.add(
          new ColumnSpec(
              field.name(),
              column.kind(),
              column.dtype(),
              field.shape().clone(),
              "the declared shape"));
    }
    return new ParquetRead(dataset, selected, columns);
  }

  /** Every readable column into the transform {@code spec}, {@code required} of its output. */
  private static ParquetRead transformed(SourceDataset dataset, String spec, StructType required) {
    List<SourceColumn> selected = TransformedSchema.inputColumns(dataset.schema());
    List<ColumnSpec> columns = TensorShapes.resolve(selected, dataset, true);
    StructType output = TransformedSchema.sparkSchema(spec, columns);
    TransformedSchema.checkRequired(required, output, SourceOptions.TRANSFORMS + "='" + spec + "'");
    return new ParquetRead(dataset, selected, columns, spec, required);
  }

  /** Whether stored values of {@code stored} become {@code declared} exactly. */
  private static boolean widens(DType stored, DType declared) {
    return stored == DType.INT32 && declared == DType.INT64
        || stored == DType.FLOAT32 && declared == DType.FLOAT64;
  }

  public SourceDataset dataset() {
    return dataset;
  }

  /** The columns read, in the batch's order. */
  public List<ColumnSpec> columns() {
    return columns;
  }

  /** The columns as Spark sees them. */
  public StructType sparkSchema() {
    List<StructField> fields = new ArrayList<>();
    for (SourceColumn column : selected) {
      fields.add(column.sparkField());
    }
    return new StructType(fields.toArray(StructField[]::new));
  }

  /**
   * Every rank's rows for {@code loader}'s batches on {@code worldSize} ranks in epoch {@code
   * epoch}.
   */
  public ReadPlan plan(LoaderOptions loader, int worldSize, int epoch) {
    if (tokens != null && tokens.mode() == TokenLayout.Mode.PACK) {
      refuseDeletedRows();
      if (!tokens.countable()) {
        throw new IllegalArgumentException(
            tokens
                + ": the ranks' equal spans of tokens are counted from the footers, which do not "
                + "say how many tokens cut documents keep (expected: longDocuments=continue)");
      }
      if (tokens.tokenizer() != null) {
        throw new IllegalArgumentException(
            tokens
                + ": the ranks' equal spans of tokens are counted from the footers, which do not "
                + "count the tokens of text (expected: documents of token ids, or pad with "
                + "longDocuments=truncate, one row per document)");
      }
      return footers(
          TokenPlanner.plan(
              groups(),
              TokenSchema.groupTokens(dataset, columns.get(0)),
              tokens,
              worldSize,
              loader.batchSize(),
              loader.shuffle(),
              loader.seed(),
              epoch,
              config(loader, worldSize, epoch, dataset.options().shuffleBuffer(), false)
                  .windowRows(),
              dataset.input()));
    }
    if (tokens != null && !tokens.countable()) {
      throw new IllegalArgumentException(
          tokens
              + ": the ranks' equal batches are counted from the footers, which do not say how "
              + "many rows split documents fill (expected: longDocuments=truncate, one row per "
              + "document)");
    }
    GlobalBatch global = global();
    if (global != null) {
      return footers(
          RankPlanner.global(
              groups(),
              global,
              worldSize,
              loader.shuffle(),
              loader.seed(),
              epoch,
              dataset.input(),
              windowRows(loader, worldSize, epoch)));
    }
    return footers(
        RankPlanner.plan(
            groups(),
            worldSize,
            loader.batchSize(),
            loader.dropLast(),
            loader.shuffle(),
            loader.seed(),
            epoch,
            dataset.input(),
            windowRows(loader, worldSize, epoch)));
  }

  /**
   * What plans any epoch of {@code loader}'s batches on {@code worldSize} ranks on the ranks
   * themselves, each epoch in its own order (the read's {@code globalBatchSize}'s, if it has one):
   * rows only (token rows are planned by their tokens).
   *
   * @throws IllegalArgumentException for token rows, naming {@code option}, the caller's option
   */
  public EpochPlanner epochPlanner(LoaderOptions loader, int worldSize, String option) {
    if (tokens != null) {
      throw new IllegalArgumentException(
          String.format(
              "%s: token rows (%s) are planned by their tokens, which %s does not plan again "
                  + "each epoch (expected: epochOrder=rank, or a new run per epoch)",
              option, tokens, option));
    }
    Map<String, FileFooter> footers = new HashMap<>();
    for (ParquetFile file : dataset.files()) {
      if (file.footer() != null) {
        footers.put(file.path(), file.footer());
      }
    }
    return new EpochPlanner(
        groups(),
        worldSize,
        loader.batchSize(),
        loader.dropLast(),
        loader.shuffle(),
        loader.seed(),
        dataset.input(),
        windowRows(loader, worldSize, 0),
        global(),
        footers);
  }

  /**
   * Packing counts each row group's tokens from its footer, which cannot leave out the documents a
   * table's snapshot deleted.
   */
  private void refuseDeletedRows() {
    for (ParquetFile file : dataset.files()) {
      if (file.kept() != null) {
        throw new IllegalArgumentException(
            String.format(
                "%s: file '%s' of %s has rows its snapshot deleted, and packing counts tokens "
                    + "from the footers, which count them too (expected: a table without deleted "
                    + "rows, e.g. after compacting it, or pad=LENGTH, one row per document)",
                tokens, file.path(), dataset.input()));
      }
    }
  }

  /** {@code plan} with the footers the driver read of files on remote storage, for the ranks. */
  private ReadPlan footers(ReadPlan plan) {
    Map<String, FileFooter> footers = new HashMap<>();
    for (ParquetFile file : dataset.files()) {
      if (file.footer() != null) {
        footers.put(file.path(), file.footer());
      }
    }
    return footers.isEmpty() ? plan : plan.withFooters(footers);
  }

  /**
   * Every rank's rows for the rest of {@code state}'s epoch on {@code worldSize} ranks (the epoch's
   * start if {@code state} is null): each rank starts at the row group and row where its rows are.
   *
   * @throws IllegalArgumentException if the state is not of this read's order ({@link
   *     ParquetResume#check})
   * @throws dev.stoker.loader.state.InputChangedException if the files changed since the state was
   *     taken, unless {@code acceptChangedInput}
   */
  public ReadPlan plan(
      LoaderOptions loader, int worldSize, LoaderState state, boolean acceptChangedInput) {
    GlobalBatch global = global();
    ParquetResume.check(state, loader, global, acceptChangedInput ? null : fingerprint());
    if (global != null) {
      return footers(
          RankPlanner.globalResumed(
              groups(),
              global,
              state.resumedOn(worldSize).segments(),
              loader.shuffle(),
              loader.seed(),
              state.orderEpoch(),
              dataset.input(),
              state.windowRows()));
    }
    if (tokens != null && tokens.mode() == TokenLayout.Mode.PACK) {
      refuseDeletedRows();
      return footers(
          TokenPlanner.resumed(
              groups(),
              TokenSchema.groupTokens(dataset, columns.get(0)),
              tokens,
              state.resumedOn(worldSize).segments(),
              loader.batchSize(),
              loader.shuffle(),
              loader.seed(),
              state.orderEpoch(),
              state.windowRows()));
    }
    return footers(
        RankPlanner.resumed(
            groups(),
            state.resumedOn(worldSize).segments(),
            loader.batchSize(),
            loader.dropLast(),
            loader.shuffle(),
            loader.seed(),
            state.orderEpoch(),
            state.windowRows()));
  }

  /**
   * The read's global order ({@code globalBatchSize}), or null: each rank's own.
   *
   * @throws IllegalArgumentException for token rows, which are planned by their tokens
   */
  public GlobalBatch global() {
    GlobalBatch global = dataset.options().global();
    if (global != null && tokens != null) {
      throw new IllegalArgumentException(
          String.format(
              "%s=%d with token rows (%s), which are planned by their tokens (expected: "
                  + "batchSize per rank)",
              SparkOptionTable.GLOBAL_BATCH_SIZE.name(), global.rows(), tokens));
    }
    return global;
  }

  /** The rows of the read's shuffle window, which its plans lay row groups out for. */
  private int windowRows(LoaderOptions loader, int worldSize, int epoch) {
    return config(loader, worldSize, epoch, dataset.options().shuffleBuffer(), false).windowRows();
  }

  /** The files read, with their sizes and modification times. */
  public InputFingerprint fingerprint() {
    return ParquetResume.fingerprint(dataset);
  }

  /**
   * What every rank reads with: {@code shuffleBuffer} rows of shuffle buffer (null: as many as fit
   * {@link #WINDOW_BYTES}, at most {@link #WINDOW_ROWS}).
   *
   * @throws IllegalArgumentException if {@code shuffleBuffer} rows take more than one block
   */
  public ReadConfig config(
      LoaderOptions loader,
      int worldSize,
      int epoch,
      Integer shuffleBuffer,
      boolean verifyChecksums) {
    long rowBytes = Math.max(1, columns.stream().mapToLong(ColumnSpec::windowRowBytes).sum());
    int windowRows = windowRows(shuffleBuffer, rowBytes);
    int readerRows = (int) Math.max(1, Math.min(dataset.readerRows(), WINDOW_BYTES / rowBytes));
    return new ReadConfig(
        LoaderConfig.of(loader, Placement.of(0, worldSize)),
        epoch,
        sparkSchema(),
        columns,
        windowRows,
        readerRows,
        dataset.hadoop(),
        verifyChecksums,
        transforms,
        delivered,
        tokens,
        dataset.names());
  }

  /** The {@code transforms} spec the ranks run on every row, or null. */
  public String transforms() {
    return transforms;
  }

  /** The fields of the batches: the columns' own, or what the transform writes from them. */
  public Schema batchSchema() {
    List<Field> fields = new ArrayList<>();
    for (ColumnSpec column : columns) {
      fields.add(column.field());
    }
    Schema input = Schema.of(fields);
    if (tokens != null) {
      return tokens.outputSchema(tokens.idType(columns.get(0).dtype()));
    }
    return transforms == null ? input : Transforms.parse(transforms).outputSchema(input);
  }

  /** Every row group of every file, file by file, with the bytes of the selected columns. */
  private List<RankPlanner.Group> groups() {
    List<RankPlanner.Group> groups = new ArrayList<>();
    long inputRow = 0;
    for (ParquetFile file : dataset.files()) {
      for (RowGroup group : file.rowGroups()) {
        long bytes = 0;
        boolean decodable = true;
        for (SourceColumn column : selected) {
          ColumnStats stats = group.columns().get(column.name());
          bytes += stats == null ? 0 : stats.bytes();
          decodable &= stats != null && stats.decodable();
        }
        RankPlanner.Group read =
            new RankPlanner.Group(file.path(), group, bytes, decodable, inputRow, file.kept());
        groups.add(read);
        inputRow += read.rows();
      }
    }
    return groups;
  }

  private int windowRows(Integer given, long rowBytes) {
    if (given == null) {
      return (int) Math.max(1, Math.min(WINDOW_ROWS, WINDOW_BYTES / rowBytes));
    }
    long bytes = ShuffleWindow.bytes(columns, given);
    if (bytes > DirectAllocator.MAX_BLOCK) {
      throw new IllegalArgumentException(
          String.format(
              "%s: %d rows of %d bytes make %d bytes "
                  + "(expected: at most %d bytes, the largest block; lower %s)",
              SourceOptions.SHUFFLE_BUFFER,
              given,
              rowBytes,
              bytes,
              DirectAllocator.MAX_BLOCK,
              SourceOptions.SHUFFLE_BUFFER));
    }
    return given;
  }
}
