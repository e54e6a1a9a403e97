package dev.stoker.spark.source;

import dev.stoker.spark.parquet.SourceDataset;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code format("stoker")}: Parquet files read as fixed-size columnar batches, one partition per
 * rank, the same number of batches in every partition. The files are listed and their footers read
 * once, when the DataFrame is made; the schema comes from them.
 */
public final class StokerSource implements TableProvider, DataSourceRegister {
  /** The name in {@code format(...)} and {@code USING ...}. */
  public static final String NAME = "stoker";

  private Map<String, String> loadedOptions;
  private SourceDataset loaded;

  @Override
  public String shortName() {
    return NAME;
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return StokerTable.schemaOf(dataset(options.asCaseSensitiveMap()));
  }

  @Override
  public Table getTable(
      StructType schema, Transform[] partitioning, Map<String, String> properties) {
    SparkSession.getActiveSession()
        .foreach(
            spark -> {
              EqualBatchesCheck.register(spark); // before any query over this read is optimized
              return null;
            });
    return new StokerTable(dataset(properties));
  }

  /** The files of a read; Spark infers the schema, then gets the table, with the same options. */
  private synchronized SourceDataset dataset(Map<String, String> options) {
    if (loaded == null || !loadedOptions.equals(options)) {
      loaded = SourceDataset.load(options);
      loadedOptions = Map.copyOf(options);
    }
    return loaded;
  }
}
