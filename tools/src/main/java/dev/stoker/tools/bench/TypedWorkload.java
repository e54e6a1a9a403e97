package dev.stoker.tools.bench;

import static dev.stoker.tools.bench.TypedColumns.BYTES;
import static dev.stoker.tools.bench.TypedColumns.DOUBLES;
import static dev.stoker.tools.bench.TypedColumns.FLOATS;
import static dev.stoker.tools.bench.TypedColumns.INTS;
import static dev.stoker.tools.bench.TypedColumns.LONGS;
import static dev.stoker.tools.bench.TypedColumns.elements;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;

/**
 * The {@code typed} workload: a sample is one typed bulk put per field from heap arrays through
 * {@link SampleWriter} ({@code putFloats}, {@code putDoubles}, {@code putInts}, {@code putLongs},
 * {@code putBytes}), so that a benchmark of it measures exactly those puts.
 */
final class TypedWorkload implements Workload, MapDataset {
  private final TypedColumns data;

  TypedWorkload(int samples, long seed) {
    this.data = new TypedColumns(samples, seed);
  }

  @Override
  public String name() {
    return "typed";
  }

  @Override
  public long bytesPerSample() {
    return TypedColumns.SAMPLE_BYTES;
  }

  @Override
  public Schema schema() {
    return TypedColumns.SCHEMA;
  }

  @Override
  public int size() {
    return data.samples;
  }

  @Override
  public long samples() {
    return data.samples;
  }

  @Override
  public DataLoader newLoader(LoaderOptions options) {
    return new DataLoader(this, options);
  }

  @Override
  public void write(int index, SampleWriter row) {
    row.putFloats(FLOATS, 0, data.floats, index * elements(FLOATS), elements(FLOATS));
    row.putDoubles(DOUBLES, 0, data.doubles, index * elements(DOUBLES), elements(DOUBLES));
    row.putInts(INTS, 0, data.ints, index * elements(INTS), elements(INTS));
    row.putLongs(LONGS, 0, data.longs, index * elements(LONGS), elements(LONGS));
    row.putBytes(BYTES, 0, data.bytes, index * elements(BYTES), elements(BYTES));
  }
}
