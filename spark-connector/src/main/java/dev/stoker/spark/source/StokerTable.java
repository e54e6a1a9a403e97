package dev.stoker.spark.source;

import dev.stoker.spark.parquet.SourceDataset;
import dev.stoker.spark.parquet.TokenSchema;
import dev.stoker.spark.parquet.TransformedSchema;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The Parquet files of one read, as a table Spark can scan in batches. */
final class StokerTable implements SupportsRead {
  private final SourceDataset dataset;

  StokerTable(SourceDataset dataset) {
    this.dataset = dataset;
  }

  @Override
  public String name() {
    return "stoker " + dataset.input();
  }

  @Override
  @SuppressWarnings("deprecation") // columns() is newer than Spark 3.5; schema() works on both
  public StructType schema() {
    return schemaOf(dataset);
  }

  /**
   * The columns a read shows: the files', with {@code transforms} its transform's output, with
   * {@code pack} or {@code pad} the token rows'.
   */
  static StructType schemaOf(SourceDataset dataset) {
    if (dataset.options().tokens() != null) {
      return TokenSchema.of(dataset);
    }
    return dataset.options().transforms() == null
        ? dataset.schema().sparkSchema()
        : TransformedSchema.of(dataset);
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ);
  }

  @Override
  public StokerScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new StokerScanBuilder(dataset);
  }
}
