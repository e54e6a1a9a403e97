package dev.stoker.spark.parquet;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

/**
 * One snapshot of a Delta or Iceberg table, as its own Spark reader sees it: the version read, the
 * table's columns, and each data file that keeps rows, with the rows it keeps where the snapshot
 * deleted some (a Delta deletion vector, Iceberg position or equality deletes).
 *
 * <p>The table's own reader applies the deletes: one job reads each row's file and position
 * (Delta's {@code _metadata.row_index}, Iceberg's {@code _pos}), no column's values, and every task
 * sends the driver only runs of consecutive positions, so that a file without deletes costs one
 * run. Stoker's reader then reads the files' columns and passes over the rows between runs. Nothing
 * of Delta or Iceberg is linked: their jars need only be on the session's class path.
 *
 * @param version the Delta version or Iceberg snapshot id read
 * @param columns the table's column names, as its schema has them
 * @param files the data files that keep rows, sorted by path
 * @param kept for each data file (by its path as {@code files} has it), the rows kept: every row of
 *     its footer unless the snapshot deleted some
 * @param names where the data files keep the columns (Delta's column mapping, Iceberg's field ids)
 */
public record TableSnapshot(
    TableRef table,
    long version,
    List<String> columns,
    List<FileStatus> files,
    Map<String, KeptRows> kept,
    ColumnNames names) {

  /**
   * {@code files}' footers, each with the rows the snapshot keeps of it where it deleted some.
   *
   * @throws IllegalStateException if the table keeps a row past the end of a file
   */
  List<ParquetFile> keptFiles(List<ParquetFile> footers) {
    List<ParquetFile> read = new ArrayList<>();
    for (ParquetFile file : footers) {
      KeptRows rows = kept.get(file.path());
      long fileRows = file.rows();
      if (rows == null) {
        read.add(file);
        continue;
      }
      if (rows.end() > fileRows) {
        throw new IllegalStateException(
            String.format(
                "%s at version %d keeps rows up to %d of file '%s', which holds %d (expected: the "
                    + "file as the table wrote it; was it rewritten outside the table?)",
                table.describe(), version, rows.end(), file.path(), fileRows));
      }
      read.add(rows.count() == fileRows ? file : file.withKept(rows));
    }
    return read;
  }

  /** {@code footers} with their columns under the table's names ({@link ColumnNames#named}). */
  List<ParquetFile> named(List<ParquetFile> footers) {
    List<ParquetFile> named = new ArrayList<>(footers.size());
    for (ParquetFile file : footers) {
      named.add(names.named(file));
    }
    return named;
  }

  /**
   * Checks that the data files' columns are the table's, by name: a column the table does not name
   * (where neither Delta's column mapping nor Iceberg's field ids say where it went) would else be
   * read as another or not at all.
   *
   * @throws IllegalArgumentException naming the first column of the files that the table lacks
   */
  void checkColumns(String[] fileColumns) {
    for (String column : fileColumns) {
      if (!columns.contains(column)) {
        throw new IllegalArgumentException(
            String.format(
                "%s at version %d: its data files hold column '%s', which the table's columns %s "
                    + "do not name (expected: columns stored under their names; a column renamed "
                    + "or dropped since the files were written, or Delta's column mapping, is "
                    + "not read by name: rewrite the table, or read it through Spark's rows)",
                table.describe(), version, column, columns));
      }
    }
  }

  /**
   * Reads the snapshot of {@code table} (its current version, or the version it names).
   *
   * @throws IllegalArgumentException if the table cannot be read, naming it and the remedy
   */
  public static TableSnapshot read(SparkSession spark, TableRef table, Configuration conf) {
    try {
      long version = table.version() != null ? table.version() : current(spark, table);
      Dataset<Row> rows = snapshot(spark, table, version);
      // a time travel reads with the snapshot's schema; a read of today's table with today's,
      // which a column renamed since the files were written no longer matches
      Dataset<Row> named = table.version() != null ? rows : latest(spark, table);
      List<String> columns = Arrays.asList(named.schema().fieldNames());
      ColumnNames names =
          TableColumnNames.of(table, version, rows, columns, table.version() == null);
      return of(table, version, columns, runs(spark, table, version, rows), conf, names);
    } catch (Refused | UncheckedIOException e) {
      throw e;
    } catch (Exception | LinkageError e) {
      // Spark's AnalysisException is checked to Java's eyes, thrown where Scala code says nothing
      throw unreadable(table, e);
    }
  }

  /**
   * Each file's runs of kept positions, as (file, {@link PositionRuns} bytes), a file in one or
   * more pieces; {@link #EVERY_ROW} for a file that keeps every row.
   */
  private static List<Tuple2<String, byte[]>> runs(
      SparkSession spark, TableRef table, long version, Dataset<Row> rows) {
    Dataset<Row> positions;
    if (table.format() == TableRef.Format.ICEBERG) {
      List<Tuple2<String, byte[]>> files = icebergFilesWithoutDeletes(spark, table, version);
      if (files != null) {
        return files;
      }
      positions = rows.select(functions.col("_file").as("f"), functions.col("_pos").as("p"));
    } else if (hasRowIndex(rows)) {
      positions =
          rows.select(
              functions.col("_metadata.file_path").as("f"),
              functions.col("_metadata.row_index").as("p"));
    } else {
      // a Delta table without deletion vectors deletes by rewriting files: every row is kept
      List<Tuple2<String, byte[]>> files = new ArrayList<>();
      for (String file : rows.inputFiles()) {
        files.add(new Tuple2<>(file, EVERY_ROW));
      }
      return files;
    }
    return positions
        .mapPartitions(new PositionRuns(), Encoders.tuple(Encoders.STRING(), Encoders.BINARY()))
        .collectAsList();
  }

  /**
   * The data files of an Iceberg snapshot that has no delete file, each keeping every row; null if
   * it has one (then rows are deleted, and their positions are asked of the reader).
   */
  private static List<Tuple2<String, byte[]>> icebergFilesWithoutDeletes(
      SparkSession spark, TableRef table, long version) {
    if (!icebergMetadata(spark, table, version, "delete_files").isEmpty()) {
      return null;
    }
    List<Tuple2<String, byte[]>> files = new ArrayList<>();
    for (Row file :
        icebergMetadata(spark, table, version, "data_files").select("file_path").collectAsList()) {
      files.add(new Tuple2<>(file.getString(0), EVERY_ROW));
    }
    return files;
  }

  /** Iceberg's metadata table {@code kind} of the snapshot. */
  private static Dataset<Row> icebergMetadata(
      SparkSession spark, TableRef table, long version, String kind) {
    return table.name() != null
        ? spark.sql("SELECT * FROM " + table.name() + "." + kind + " VERSION AS OF " + version)
        : spark
            .read()
            .format("iceberg")
            .option("snapshot-id", version)
            .load(table.path() + "#" + kind);
  }

  /** Whether Delta's reader gives row positions: it does where the table has deletion vectors. */
  private static boolean hasRowIndex(Dataset<Row> rows) {
    StructField metadata = rows.select("_metadata").schema().fields()[0];
    return metadata.dataType() instanceof StructType struct
        && Arrays.asList(struct.fieldNames()).contains("row_index");
  }

  /** The runs of a file that keeps every row: none. */
  private static final byte[] EVERY_ROW = new byte[0];

  /** The snapshot of {@code runs} (file, its runs as {@link PositionRuns} bytes), statused. */
  static TableSnapshot of(
      TableRef table,
      long version,
      List<String> columns,
      List<Tuple2<String, byte[]>> runs,
      Configuration conf,
      ColumnNames names) {
    Map<String, List<byte[]>> byFile = new TreeMap<>();
    for (Tuple2<String, byte[]> piece : runs) {
      byFile.computeIfAbsent(piece._1(), f -> new ArrayList<>()).add(piece._2());
    }
    List<FileStatus> files = new ArrayList<>();
    Map<String, KeptRows> kept = new LinkedHashMap<>();
    for (Map.Entry<String, List<byte[]>> file : byFile.entrySet()) {
      Path path = path(table.format(), file.getKey());
      FileStatus status;
      try {
        status = path.getFileSystem(conf).getFileStatus(path);
      } catch (IOException e) {
        throw new UncheckedIOException(
            table.describe()
                + " at version "
                + version
                + ": its data file '"
                + path
                + "' cannot be read ("
                + e.getMessage()
                + ")",
            e);
      }
      files.add(status);
      List<byte[]> pieces = file.getValue();
      if (pieces.size() == 1 && pieces.get(0).length == 0) {
        continue; // every row
      }
      kept.put(status.getPath().toString(), PositionRuns.decode(pieces));
    }
    return new TableSnapshot(table, version, List.copyOf(columns), List.copyOf(files), kept, names);
  }

  /** A data file's path as the table's reader names it. */
  private static Path path(TableRef.Format format, String named) {
    // Delta's file_path is Spark's URL-encoded path; Iceberg's _file is the path as written
    return format == TableRef.Format.DELTA ? new Path(URI.create(named)) : new Path(named);
  }

  /** The table's current version or snapshot id. */
  private static long current(SparkSession spark, TableRef table) {
    if (table.format() == TableRef.Format.DELTA) {
      String target =
          table.name() != null ? table.name() : "delta.`" + table.path().replace("`", "``") + "`";
      List<Row> last = spark.sql("DESCRIBE HISTORY " + target + " LIMIT 1").collectAsList();
      return last.get(0).getAs("version");
    }
    Dataset<Row> refs =
        table.name() != null
            ? spark.table(table.name() + ".refs")
            : spark.read().format("iceberg").load(table.path() + "#refs");
    List<Row> main = refs.where("name = 'main'").select("snapshot_id").collectAsList();
    if (main.isEmpty() || main.get(0).isNullAt(0)) {
      throw new Refused(
          table.describe()
              + " has no snapshot: nothing was written to it (expected: a table with rows)");
    }
    return main.get(0).getLong(0);
  }

  /** The table's rows at {@code version}, with the reader's metadata columns at hand. */
  private static Dataset<Row> snapshot(SparkSession spark, TableRef table, long version) {
    if (table.name() != null) {
      return spark.sql("SELECT * FROM " + table.name() + " VERSION AS OF " + version);
    }
    return table.format() == TableRef.Format.DELTA
        ? spark.read().format("delta").option("versionAsOf", version).load(table.path())
        : spark.read().format("iceberg").option("snapshot-id", version).load(table.path());
  }

  /** The table as it is now, with today's schema. */
  private static Dataset<Row> latest(SparkSession spark, TableRef table) {
    return table.name() != null
        ? spark.table(table.name())
        : spark.read().format(table.format().label()).load(table.path());
  }

  /** An error of the table's own that reading it again would meet: passed on as it is. */
  private static final class Refused extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  private static IllegalArgumentException unreadable(TableRef table, Throwable e) {
    String jar =
        table.format() == TableRef.Format.DELTA
            ? "io.delta:delta-spark with spark.sql.extensions="
                + "io.delta.sql.DeltaSparkSessionExtension"
            : table.name() != null
                ? "org.apache.iceberg:iceberg-spark-runtime and the table's catalog "
                    + "(spark.sql.catalog.<name>)"
                : "org.apache.iceberg:iceberg-spark-runtime; by path, Iceberg's reader uses its "
                    + "catalog default_iceberg, of type hive unless set (Hive's classes, or "
                    + "spark.sql.catalog.default_iceberg.type=hadoop with its warehouse)";
    return new IllegalArgumentException(
        String.format(
            "%s%s cannot be read: %s (expected: a %s table that Spark reads, on a session with %s;"
                + " check the path or name%s)",
            table.describe(),
            table.version() != null ? " at versionAsOf=" + table.version() : "",
            firstLine(e),
            table.format().label(),
            jar,
            table.version() != null ? " and the version" : ""),
        e);
  }

  private static String firstLine(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
    int end = message.indexOf('\n');
    return end < 0 ? message : message.substring(0, end);
  }

  /**
   * Turns a task's rows of (file, position) into runs of consecutive positions of one file, which
   * each task sends the driver compactly: per file, the count of runs, then each run's gap from the
   * last one's end and its length, as unsigned varints (a few bytes a run, so that a snapshot that
   * deletes many rows costs the driver little).
   */
  static final class PositionRuns implements MapPartitionsFunction<Row, Tuple2<String, byte[]>> {
    private static final long serialVersionUID = 1L;

    @Override
    public Iterator<Tuple2<String, byte[]>> call(Iterator<Row> rows) {
      List<Tuple2<String, byte[]>> files = new ArrayList<>();
      String file = null;
      LongList starts = new LongList();
      LongList ends = new LongList();
      while (rows.hasNext()) {
        Row row = rows.next();
        String f = row.getString(0);
        long p = row.getLong(1);
        // another file, or positions that start again lower (two splits of a file): a new piece
        if (!f.equals(file) || ends.size() > 0 && p < ends.last()) {
          if (file != null) {
            files.add(new Tuple2<>(file, encode(starts, ends)));
          }
          file = f;
          starts.clear();
          ends.clear();
        }
        if (ends.size() > 0 && p == ends.last()) {
          ends.setLast(p + 1);
        } else {
          starts.add(p);
          ends.add(p + 1);
        }
      }
      if (file != null) {
        files.add(new Tuple2<>(file, encode(starts, ends)));
      }
      return files.iterator();
    }

    static byte[] encode(LongList starts, LongList ends) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(8 + starts.size() * 4);
      writeVarint(out, starts.size());
      long previous = 0;
      for (int i = 0; i < starts.size(); i++) {
        writeVarint(out, starts.get(i) - previous); // a piece's runs ascend
        writeVarint(out, ends.get(i) - starts.get(i));
        previous = ends.get(i);
      }
      return out.toByteArray();
    }

    /** The kept rows of a file's pieces, as tasks sent them. */
    static KeptRows decode(List<byte[]> pieces) {
      LongList starts = new LongList();
      LongList ends = new LongList();
      for (byte[] piece : pieces) {
        ByteBuffer in = ByteBuffer.wrap(piece);
        long count = readVarint(in);
        long previous = 0;
        for (long i = 0; i < count; i++) {
          long start = previous + readVarint(in);
          long end = start + readVarint(in);
          starts.add(start);
          ends.add(end);
          previous = end;
        }
      }
      return KeptRows.of(starts.toArray(), ends.toArray());
    }

    private static void writeVarint(ByteArrayOutputStream out, long value) {
      while ((value & ~0x7FL) != 0) {
        out.write((int) ((value & 0x7F) | 0x80));
        value >>>= 7;
      }
      out.write((int) value);
    }

    private static long readVarint(ByteBuffer in) {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        byte b = in.get();
        value |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return value;
        }
      }
      throw new IllegalStateException("a varint of more than 64 bits");
    }
  }

  /** A growable array of longs. */
  static final class LongList {
    private long[] values = new long[16];
    private int size;

    void add(long value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    long get(int i) {
      return values[i];
    }

    long last() {
      return values[size - 1];
    }

    void setLast(long value) {
      values[size - 1] = value;
    }

    int size() {
      return size;
    }

    void clear() {
      size = 0;
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
