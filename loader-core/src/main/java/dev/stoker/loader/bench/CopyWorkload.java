package dev.stoker.loader.bench;

import static dev.stoker.loader.bench.ReferenceWorkloads.IMAGE;
import static dev.stoker.loader.bench.ReferenceWorkloads.IMAGE_BYTES;
import static dev.stoker.loader.bench.ReferenceWorkloads.LABEL;

import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.nio.FloatBuffer;
import java.util.SplittableRandom;

/** The {@code copy} workload: float32 images off-heap, each written with one bulk copy. */
final class CopyWorkload implements Workload {
  private static final int FLOATS = IMAGE_BYTES / Float.BYTES;

  private final DirectSamples images;
  private final long[] labels;

  CopyWorkload(int samples, long seed) {
    ReferenceWorkloads.checkSamples(samples);
    this.images = new DirectSamples(samples, IMAGE_BYTES);
    this.labels = new long[samples];
    SplittableRandom random = new SplittableRandom(seed);
    float[] values = new float[FLOATS];
    for (int i = 0; i < samples; i++) {
      for (int v = 0; v < FLOATS; v += 2) {
        long bits = random.nextLong();
        values[v] = (bits >>> 40) * 0x1.0p-24f;
        values[v + 1] = ((bits >>> 16) & 0xFF_FFFF) * 0x1.0p-24f;
      }
      FloatBuffer view = images.buffer(i).asFloatBuffer();
      view.put(images.offset(i) / Float.BYTES, values, 0, FLOATS);
      labels[i] = random.nextInt(10);
    }
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
