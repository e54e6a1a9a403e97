package dev.stoker.spark.parquet;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.io.Closeable;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * Decodes the rows of one split of a Parquet file (the row groups whose middle lies in its byte
 * range, as Spark's own reader takes them) with Stoker's page reader ({@link FilePages}) and
 * decoder, straight into the caller's column buffers: for readers such as the training runner's shard that take a plain Parquet scan
 * without Spark's row or vector assembly. Only columns whose Parquet type holds exactly the
 * declared dtype, in PLAIN or dictionary pages, qualify; {@link #whyNot} says whether files do.
 */
public final class SplitDecoder implements Closeable {
  /** Bytes {@code [start, start + length)} of file {@code path}, as Spark's file scan splits it. */
  public record Split(String path, long start, long length) implements Serializable {}

  private final Split split;
  private final ParquetFileReader reader;
  private final List<ColumnSpec> columns = new ArrayList<>();
  private final List<ColumnDescriptor> descriptors = new ArrayList<>();
  private final MessageType requested;
  private final FilePages pages;
  private final ChunkDecoder[] decoders;
  private final long rows;
  private long groupLeft;
  private long nextGroupFirstRow;
  private int groupOrdinal;

  /**
   * Opens {@code split} to read {@code fields} from it, page checksums verified where the file
   * has them; reads its footer only.
   */
  public SplitDecoder(Split split, List<Field> fields, Configuration conf) throws IOException {
    this(split, fields, conf, true);
  }

  /**
   * Opens {@code split} to read {@code fields} from it; reads its footer only. Page checksums are
   * verified where the file has them if {@code verifyChecksums}.
   */
  public SplitDecoder(Split split, List<Field> fields, Configuration conf,
      boolean verifyChecksums) throws IOException {
    this.split = split;
    Path path = new Path(split.path());
    ParquetReadOptions options = HadoopReadOptions.builder(conf, path)
        .withRange(split.start(), split.start() + split.length()).build();
    HadoopInputFile input = HadoopInputFile.fromPath(path, conf);
    this.reader = new ParquetFileReader(input, options);
    try {
      MessageType file = reader.getFileMetaData().getSchema();
      List<Type> types = new ArrayList<>();
      for (Field field : fields) {
        String problem = problem(file, field);
        if (problem != null) {
          throw new IllegalStateException("file '" + split.path() + "': " + problem
              + " (expected: the same schema as when the read was planned)");
        }
        types.add(file.getType(field.name()));
        columns.add(spec(file.getType(field.name()), field));
      }
      this.requested = new MessageType(file.getName(), types);
      for (ColumnSpec column : columns) {
        descriptors.add(requested.getColumnDescription(leaf(requested, column.name())));
      }
      long total = 0;
      for (BlockMetaData block : reader.getRowGroups()) {
        total += block.getRowCount();
      }
      this.rows = total;
      List<BlockMetaData> groups = reader.getRowGroups();
      this.nextGroupFirstRow =
          groups.isEmpty() ? 0 : Math.max(0, groups.get(0).getRowIndexOffset());
      this.pages = new FilePages(input, split.path(), groups, columns, descriptors, conf,
          verifyChecksums);
    } catch (IOException | RuntimeException | Error e) { // closed however the opening fails
      reader.close();
      throw e;
    }
    this.decoders = new ChunkDecoder[fields.size()];
  }

  /**
   * Null when every file in {@code paths} holds {@code fields} as Stoker decodes them, else why
   * not, e.g. {@code "column 'label' of file '...' is INT32 for int64"}. Reads the footers only.
   */
  public static String whyNot(List<String> paths, List<Field> fields, Configuration conf)
      throws IOException {
    for (String file : paths) {
      Path path = new Path(file);
      try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(path,
          conf))) {
        MessageType schema = reader.getFileMetaData().getSchema();
        for (Field field : fields) {
          String problem = problem(schema, field);
          if (problem != null) {
            return "file '" + file + "': " + problem;
          }
          String[] leaf = leaf(schema, field.name());
          for (BlockMetaData block : reader.getFooter().getBlocks()) {
            for (ColumnChunkMetaData chunk : block.getColumns()) {
              if (java.util.Arrays.equals(chunk.getPath().toArray(), leaf)
                  && !ParquetFile.decodable(chunk)) {
                return "file '" + file + "': column '" + field.name() + "' has pages in "
                    + chunk.getEncodings() + " encodings";
              }
            }
          }
        }
      }
    }
    return null;
  }

  /** Rows of the split's row groups. */
  public long rows() {
    return rows;
  }

  /**
   * Decodes the next rows of the split, at most {@code max} and never past a row group, into
   * {@code columns[c]} from byte 0 (one buffer per field, {@code rowBytes} per row); returns how
   * many, 0 at the end of the split.
   *
   * @throws IllegalArgumentException for a null or a row of another length, naming the file,
   *     the column and the row
   * @throws IOException for a page that does not hold what it declares (or whose checksum does
   *     not match), naming the file, the column and the page's byte; never an
   *     {@link OutOfMemoryError}, which Spark would answer by ending the executor
   */
  public int read(int max, ByteBuffer[] columns) throws IOException {
    if (groupLeft == 0 && !nextGroup()) {
      return 0;
    }
    int n = (int) Math.min(max, groupLeft);
    for (int c = 0; c < decoders.length; c++) {
      decoders[c].read(n, columns[c], 0);
    }
    groupLeft -= n;
    return n;
  }

  private boolean nextGroup() throws IOException {
    long groupRows = pages.nextGroup();
    if (groupRows < 0) {
      return false;
    }
    long first = nextGroupFirstRow;
    List<BlockMetaData> groups = reader.getRowGroups();
    if (groupOrdinal < groups.size() && groups.get(groupOrdinal).getRowIndexOffset() >= 0) {
      first = groups.get(groupOrdinal).getRowIndexOffset();
    }
    groupOrdinal++;
    groupLeft = groupRows;
    nextGroupFirstRow = first + groupLeft;
    for (int c = 0; c < decoders.length; c++) {
      decoders[c] = new ChunkDecoder(columns.get(c), descriptors.get(c), requested,
          pages.pages(c), split.path(), first);
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    try {
      pages.close();
    } finally {
      reader.close();
    }
  }

  /** Why {@code field} cannot be decoded from a file of {@code schema}, or null. */
  private static String problem(MessageType schema, Field field) {
    if (!schema.containsField(field.name())) {
      return "no column '" + field.name() + "'";
    }
    Type type = schema.getType(field.name());
    Kind kind = kind(type, field);
    if (leaves(schema, field.name()) != 1) {
      return "column '" + field.name() + "' is " + type.toString().strip() + ", not one "
          + "list of numbers or one value";
    }
    PrimitiveType leaf = schema.getType(leaf(schema, field.name())).asPrimitiveType();
    DType holds = holds(leaf, kind);
    if (kind == null || holds != field.dtype()) {
      return "column '" + field.name() + "' is " + type.toString().strip() + ", not "
          + field.dtype().label() + " as declared";
    }
    return null;
  }

  private static Kind kind(Type type, Field field) {
    if (!type.isPrimitive()) {
      boolean list = type.getLogicalTypeAnnotation()
          instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation;
      return list && field.shape().length > 0 ? Kind.LIST : null;
    }
    if (type.isRepetition(Type.Repetition.REPEATED)) {
      return null;
    }
    PrimitiveTypeName name = type.asPrimitiveType().getPrimitiveTypeName();
    if (name == PrimitiveTypeName.BINARY || name == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
      return field.dtype() == DType.UINT8 && type.getLogicalTypeAnnotation() == null
          ? Kind.BINARY : null;
    }
    return field.shape().length == 0 ? Kind.SCALAR : null;
  }

  /** The dtype a leaf of {@code type} holds exactly as {@code kind}, or null. */
  private static DType holds(PrimitiveType type, Kind kind) {
    if (kind == null) {
      return null;
    }
    if (kind == Kind.BINARY) {
      return DType.UINT8;
    }
    if (type.getLogicalTypeAnnotation() != null) {
      return null;
    }
    return switch (type.getPrimitiveTypeName()) {
      case FLOAT -> DType.FLOAT32;
      case DOUBLE -> DType.FLOAT64;
      case INT32 -> DType.INT32;
      case INT64 -> DType.INT64;
      default -> null;
    };
  }

  private static ColumnSpec spec(Type type, Field field) {
    return new ColumnSpec(field.name(), kind(type, field), field.dtype(), field.shape(),
        "the declared shape");
  }

  private static int leaves(MessageType schema, String name) {
    int n = 0;
    for (ColumnDescriptor column : schema.getColumns()) {
      n += column.getPath()[0].equals(name) ? 1 : 0;
    }
    return n;
  }

  /** The path of the one leaf of top-level column {@code name}. */
  private static String[] leaf(MessageType schema, String name) {
    for (ColumnDescriptor column : schema.getColumns()) {
      if (column.getPath()[0].equals(name)) {
        return column.getPath();
      }
    }
    throw new IllegalStateException("no leaf column under '" + name + "' in " + schema);
  }
}
