package dev.stoker.spark.parquet;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * A file as the driver listed it and its footer as the driver read it, sent to the ranks with the
 * plan: a rank reading from an object store then asks for neither (a status and a footer cost round
 * trips per run), and its requests carry the status, which lets s3a refuse an object that changed
 * since it was listed. The footer travels as Parquet's own Thrift bytes.
 */
public final class FileFooter implements Serializable {
  private static final long serialVersionUID = 1L;

  private final FileStatus status;
  private final byte[] metadata;

  /**
   * The footer once read from its bytes: a dealt read opens a reader for each place of each row
   * group, and reading the footer again for each is a third of an open's time.
   */
  private transient volatile ParquetMetadata read;

  private FileFooter(FileStatus status, byte[] metadata) {
    this.status = status;
    this.metadata = metadata;
  }

  /** The footer {@code footer} of the file listed as {@code status}. */
  static FileFooter of(FileStatus status, ParquetMetadata footer) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      Util.writeFileMetaData(new ParquetMetadataConverter().toParquetMetadata(1, footer), bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new FileFooter(status, bytes.toByteArray());
  }

  /**
   * The status and whole footer (every row group) of the file at {@code path}, read from the file
   * system: for a rank that opens several readers of a file no footer was sent for.
   */
  static FileFooter read(Path path, Configuration conf) throws IOException {
    FileStatus status = path.getFileSystem(conf).getFileStatus(path);
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromStatus(status, conf),
            HadoopReadOptions.builder(conf, path).build())) {
      FileFooter own = of(status, reader.getFooter());
      own.read = reader.getFooter(); // the footer as read, not parsed again from its bytes
      return own;
    }
  }

  /** The file as listed. */
  FileStatus status() {
    return status;
  }

  /**
   * The footer, read from its bytes once (two threads may both read it the first time). Its readers
   * only read it.
   */
  ParquetMetadata read() throws IOException {
    ParquetMetadata footer = read;
    if (footer == null) {
      footer =
          new ParquetMetadataConverter()
              .fromParquetMetadata(Util.readFileMetaData(new ByteArrayInputStream(metadata)));
      read = footer;
    }
    return footer;
  }

  /** The footer's size in bytes, as sent. */
  int bytes() {
    return metadata.length;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FileFooter that
        && status.equals(that.status)
        && status.getLen() == that.status.getLen()
        && status.getModificationTime() == that.status.getModificationTime()
        && Arrays.equals(metadata, that.metadata);
  }

  @Override
  public int hashCode() {
    return Objects.hash(status, Arrays.hashCode(metadata));
  }

  @Override
  public String toString() {
    return "footer of " + status.getPath() + " (" + metadata.length + " bytes)";
  }
}
