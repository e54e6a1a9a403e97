package dev.stoker.spark.shard;

import dev.stoker.loader.Field;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A rank's mapped shard as the loader's indexed source: sample {@code i} is shard row {@code i}.
 * Its size may differ from the shard's rows so that every rank has the same number of samples:
 * smaller drops the shard's last rows, larger wraps around to its first ones (the padding of
 * PyTorch's DistributedSampler). Each sample is one raw copy per column, from any thread, but for
 * the columns it normalizes: those it converts to float32 as it writes them (see {@link
 * Normalization}), so that its schema says float32 where the shard holds raw values.
 */
public final class ShardDataset implements MapDataset {
  private final MappedShard shard;
  private final Schema schema;
  private final int size;
  private final NormalizedColumn[] normalized;

  public ShardDataset(MappedShard shard, int size) {
    this(shard, size, List.of());
  }

  /**
   * A dataset that normalizes the columns named by {@code normalizations}.
   *
   * @throws IllegalArgumentException if one names no column of the shard, or a column it cannot
   *     apply to
   */
  public ShardDataset(MappedShard shard, int size, List<Normalization> normalizations) {
    if (size < 0 || (size > 0 && shard.rows() == 0)) {
      throw new IllegalArgumentException(
          "dataset of "
              + size
              + " samples over a shard of "
              + shard.rows()
              + " rows (expected: a shard with rows, or no samples)");
    }
    this.shard = shard;
    this.size = size;
    Schema raw = shard.layout().schema();
    this.normalized = new NormalizedColumn[raw.size()];
    List<Field> fields = new ArrayList<>();
    for (int c = 0; c < raw.size(); c++) {
      fields.add(raw.field(c));
    }
    for (Normalization normalization : normalizations) {
      int c = column(raw, normalization.column());
      normalized[c] = new NormalizedColumn(shard, c, normalization);
      fields.set(c, normalization.output(raw.field(c)));
    }
    this.schema = Schema.of(fields);
  }

  private static int column(Schema schema, String name) {
    for (int c = 0; c < schema.size(); c++) {
      if (schema.field(c).name().equals(name)) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "normalize '"
            + name
            + "': no such column in the shard "
            + "(expected: a declared tensor column)");
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public int size() {
    return size;
  }

  /**
   * Writes sample {@code index}. A read of a shard file that changed under its mapping is an {@code
   * IOException} naming the file (see {@link MappedShard#faulted}).
   */
  @Override
  public void write(int index, SampleWriter row) throws IOException {
    long shardRow = index < shard.rows() ? index : index % shard.rows();
    try {
      for (int c = 0; c < schema.size(); c++) {
        if (normalized[c] != null) {
          normalized[c].write(shardRow, row);
        } else {
          row.copyRaw(c, shard.segment(c, shardRow), shard.offset(c, shardRow));
        }
      }
    } catch (InternalError e) {
      if (MappedShard.isMappedFault(e)) {
        throw shard.faulted(e);
      }
      throw e;
    }
  }

  /**
   * Reports a read of this batch that faulted after it returned (the JVM delivers the fault of a
   * compiled read late: in {@link MappedShard#check}, or already between two samples, as {@code
   * failure} or its cause), or a shard file whose size changed, as the {@link
   * ShardChangedException} naming the file.
   */
  @Override
  public void checkBatch(Throwable failure) throws ShardChangedException {
    shard.check();
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (MappedShard.isMappedFault(t)) {
        throw shard.faulted(t);
      }
    }
  }
}
