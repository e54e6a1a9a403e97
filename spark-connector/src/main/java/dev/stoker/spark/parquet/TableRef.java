package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.List;
import java.util.Locale;

/**
 * A Delta or Iceberg table as a read names it: by its path or by its name in the session's
 * catalogs, at its current version or at {@code version}.
 *
 * @param name the table's name (e.g. {@code catalog.db.name}), or null where {@code path} is given
 * @param path the table's path, or null where {@code name} is given
 * @param version the Delta version or Iceberg snapshot id to read, or null: the current one
 */
public record TableRef(Format format, String name, String path, Long version)
    implements Serializable {

  /** The table formats a read takes. */
  public enum Format {
    DELTA,
    ICEBERG;

    /** The name Spark's {@code format(...)} and Stoker's {@code tableFormat} give it. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The path as the read's paths, or none for a table by name. */
  List<String> paths() {
    return path == null ? List.of() : List.of(path);
  }

  /** E.g. {@code delta table 's3a://bucket/train'}, for messages and the resume fingerprint. */
  public String describe() {
    return format.label() + " table '" + (name != null ? name : path) + "'";
  }
}
