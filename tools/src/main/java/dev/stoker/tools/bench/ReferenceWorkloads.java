package dev.stoker.tools.bench;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import java.util.List;

/**
 * The reference workloads, on images of [3,64,64] with an int64 label (0..9) per sample; the first
 * two are the PyTorch peer's:
 *
 * <ul>
 *   <li>{@code copy}: float32 images held off-heap; writing a sample is one bulk copy.
 *   <li>{@code normalize}: uint8 images held on the heap; writing a sample converts them to float32
 *       as {@code (x/255 - mean[c]) / std[c]} with the ImageNet constants.
 *   <li>{@code stream}: the {@code copy} workload's data as a {@link
 *       dev.stoker.loader.StreamedDataset} of column chunks ({@value #DEFAULT_CHUNK_ROWS} rows by
 *       default) over the off-heap data, the chunks shuffled by {@code (seed, epoch)} when the
 *       loader shuffles.
 *   <li>{@code typed}: one field of every dtype (float32, float64, int32, int64, uint8), 2 KiB per
 *       sample each, held on the heap; writing a sample is one typed bulk put per field.
 *   <li>{@code typed-stream}: the {@code typed} workload's data streamed in column chunks, each
 *       copied with one typed bulk put per field and run of rows.
 * </ul>
 *
 * The first three write the same schema: {@code image: float32[3,64,64]} and {@code label: int64}.
 * The typed ones measure what the image workloads leave out: every typed put, for A/B runs.
 */
public final class ReferenceWorkloads {
  public static final int CHANNELS = 3;
  public static final int HEIGHT = 64;
  public static final int WIDTH = 64;

  /** Values per channel plane. */
  public static final int PLANE = HEIGHT * WIDTH;

  /** Bytes of one float32 output image. */
  public static final int IMAGE_BYTES = CHANNELS * PLANE * Float.BYTES;

  /** Field index of the image. */
  public static final int IMAGE = 0;

  /** Field index of the label. */
  public static final int LABEL = 1;

  public static final Schema SCHEMA =
      Schema.of(
          Field.of("image", DType.FLOAT32, CHANNELS, HEIGHT, WIDTH),
          Field.scalar("label", DType.INT64));

  /** The workload names {@link #of} knows. */
  public static final List<String> NAMES =
      List.of("copy", "normalize", "stream", "typed", "typed-stream");

  /** Rows per chunk of the {@code stream} workload unless told otherwise. */
  public static final int DEFAULT_CHUNK_ROWS = 4096;

  /** Most rows per chunk of the {@code stream} workload: a chunk's images fit in 1 GiB. */
  public static final int MAX_CHUNK_ROWS = (1 << 30) / IMAGE_BYTES;

  private static final double[] MEAN = {0.485, 0.456, 0.406};
  private static final double[] STD = {0.229, 0.224, 0.225};

  private ReferenceWorkloads() {}

  /** {@code samples} float32 images, values uniform in [0,1), drawn from {@code seed}. */
  public static Workload copy(int samples, long seed) {
    return new CopyWorkload(samples, seed);
  }

  /** {@code samples} uint8 images, values uniform in 0..255, drawn from {@code seed}. */
  public static Workload normalize(int samples, long seed) {
    return new NormalizeWorkload(samples, seed);
  }

  /**
   * {@code samples} rows of the {@code copy} workload's data for {@code seed}, streamed in chunks
   * of {@code chunkRows} rows: sequentially, or shuffled by chunk with {@code (seed, epoch)} when
   * the loader shuffles. For one rank.
   */
  public static Workload stream(int samples, long seed, int chunkRows) {
    return new CopyStream(samples, seed, chunkRows);
  }

  /** The workload named {@code name} (one of {@link #NAMES}); streams in chunks of 4096 rows. */
  public static Workload of(String name, int samples, long seed) {
    return of(name, samples, seed, DEFAULT_CHUNK_ROWS);
  }

  /** {@code samples} rows of every dtype, drawn from {@code seed}, written with typed puts. */
  public static Workload typed(int samples, long seed) {
    return new TypedWorkload(samples, seed);
  }

  /** The {@code typed} workload's data streamed in chunks of {@code chunkRows} rows, one rank. */
  public static Workload typedStream(int samples, long seed, int chunkRows) {
    return new TypedStream(samples, seed, chunkRows);
  }

  /** The workload named {@code name}; {@code chunkRows} applies to the streamed ones only. */
  public static Workload of(String name, int samples, long seed, int chunkRows) {
    return switch (name) {
      case "copy" -> copy(samples, seed);
      case "normalize" -> normalize(samples, seed);
      case "stream" -> stream(samples, seed, chunkRows);
      case "typed" -> typed(samples, seed);
      case "typed-stream" -> typedStream(samples, seed, chunkRows);
      default ->
          throw new IllegalArgumentException(
              "workload: '" + name + "' (expected one of: " + String.join(", ", NAMES) + ")");
    };
  }

  /** ImageNet per-channel means (a copy). */
  public static double[] mean() {
    return MEAN.clone();
  }

  /** ImageNet per-channel standard deviations (a copy). */
  public static double[] std() {
    return STD.clone();
  }

  static int checkSamples(int samples) {
    if (samples <= 0) {
      throw new IllegalArgumentException("samples: " + samples + " (expected: > 0)");
    }
    return samples;
  }
}
