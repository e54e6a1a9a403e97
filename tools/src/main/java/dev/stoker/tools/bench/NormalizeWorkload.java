package dev.stoker.tools.bench;

import static dev.stoker.tools.bench.ReferenceWorkloads.CHANNELS;
import static dev.stoker.tools.bench.ReferenceWorkloads.IMAGE;
import static dev.stoker.tools.bench.ReferenceWorkloads.IMAGE_BYTES;
import static dev.stoker.tools.bench.ReferenceWorkloads.LABEL;
import static dev.stoker.tools.bench.ReferenceWorkloads.PLANE;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.PixelNormalizer;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.util.SplittableRandom;

/**
 * The {@code normalize} workload: uint8 images on the heap, written into the float32 batch with
 * torchvision's {@code (x / 255 - mean[c]) / std[c]} through the loader's fused {@link
 * SampleWriter#putNormalized}, one call per sample; allocates nothing per sample.
 */
final class NormalizeWorkload implements Workload, MapDataset {
  private static final int SAMPLE_BYTES = CHANNELS * PLANE;
  private static final int CHUNK_BYTES = 1 << 30;

  private final int samples;
  private final int perChunk;
  private final byte[][] pixels;
  private final long[] labels;
  private final PixelNormalizer normalizer =
      PixelNormalizer.of(ReferenceWorkloads.mean(), ReferenceWorkloads.std());

  NormalizeWorkload(int samples, long seed) {
    this.samples = ReferenceWorkloads.checkSamples(samples);
    this.perChunk = Math.min(samples, CHUNK_BYTES / SAMPLE_BYTES);
    this.pixels = new byte[(samples + perChunk - 1) / perChunk][];
    this.labels = new long[samples];
    SplittableRandom random = new SplittableRandom(seed);
    for (int c = 0; c < pixels.length; c++) {
      pixels[c] = new byte[Math.min(perChunk, samples - c * perChunk) * SAMPLE_BYTES];
      fillRandom(pixels[c], random);
    }
    for (int i = 0; i < samples; i++) {
      labels[i] = random.nextInt(10);
    }
  }

  private static void fillRandom(byte[] bytes, SplittableRandom random) {
    for (int i = 0; i < bytes.length; i += Long.BYTES) {
      long bits = random.nextLong();
      for (int b = 0; b < Long.BYTES && i + b < bytes.length; b++) {
        bytes[i + b] = (byte) (bits >>> (8 * b));
      }
    }
  }

  @Override
  public String name() {
    return "normalize";
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
    return samples;
  }

  @Override
  public long samples() {
    return samples;
  }

  @Override
  public DataLoader newLoader(LoaderOptions options) {
    return new DataLoader(this, options);
  }

  @Override
  public void write(int index, SampleWriter row) {
    byte[] chunk = pixels[index / perChunk];
    int base = (index % perChunk) * SAMPLE_BYTES;
    row.putNormalized(IMAGE, 0, chunk, base, SAMPLE_BYTES, normalizer);
    row.putLong(LABEL, 0, labels[index]);
  }

  /** The uint8 value of element {@code element} of sample {@code sample}, channels first. */
  int pixel(int sample, int element) {
    return pixels[sample / perChunk][(sample % perChunk) * SAMPLE_BYTES + element] & 0xff;
  }

  long label(int sample) {
    return labels[sample];
  }
}
