package dev.stoker.tools.bench;

import static dev.stoker.tools.bench.ReferenceWorkloads.IMAGE;
import static dev.stoker.tools.bench.ReferenceWorkloads.IMAGE_BYTES;
import static dev.stoker.tools.bench.ReferenceWorkloads.LABEL;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.nio.FloatBuffer;
import java.util.SplittableRandom;

/** The {@code copy} workload: float32 images off-heap, each written with one bulk copy. */
final class CopyWorkload implements Workload, MapDataset {
  private static final int FLOATS = IMAGE_BYTES / Float.BYTES;

  private final DirectSamples images;
  private final long[] labels;

  CopyWorkload(int samples, long seed) {
    ReferenceWorkloads.checkSamples(samples);
    this.images = new DirectSamples(samples, IMAGE_BYTES);
    this.labels = generate(images, seed);
  }

  /**
   * Fills {@code images} with values uniform in [0,1) drawn from {@code seed} and returns a label
   * in 0..9 per sample: the data of the {@code copy} workload (and of {@code stream}).
   */
  static long[] generate(DirectSamples images, long seed) {
    long[] labels = new long[images.count()];
    SplittableRandom random = new SplittableRandom(seed);
    float[] values = new float[FLOATS];
    for (int i = 0; i < labels.length; i++) {
      for (int v = 0; v < FLOATS; v += 2) {
        long bits = random.nextLong();
        values[v] = (bits >>> 40) * 0x1.0p-24f;
        values[v + 1] = ((bits >>> 16) & 0xFF_FFFF) * 0x1.0p-24f;
      }
      FloatBuffer view = images.buffer(i).asFloatBuffer();
      view.put(images.offset(i) / Float.BYTES, values, 0, FLOATS);
      labels[i] = random.nextInt(10);
    }
    return labels;
  }

  @Override
  public String name() {
    return "copy";
  }

  @Override
  public long bytesPerSample() {
    return IMAGE_BYTES;
  }

  @Override
  public Schema schema() {
    return ReferenceWorkloads.SCHEMA;
  }

  @Override
  public int size() {
    return images.count();
  }

  @Override
  public long samples() {
    return images.count();
  }

  @Override
  public DataLoader newLoader(LoaderOptions options) {
    return new DataLoader(this, options);
  }

  @Override
  public void write(int index, SampleWriter row) {
    row.copyRaw(IMAGE, images.buffer(index), images.offset(index));
    row.putLong(LABEL, 0, labels[index]);
  }

  /** Element {@code element} of sample {@code sample}'s image, channels first. */
  float value(int sample, int element) {
    return images.buffer(sample).getFloat(images.offset(sample) + element * Float.BYTES);
  }

  long label(int sample) {
    return labels[sample];
  }
}
