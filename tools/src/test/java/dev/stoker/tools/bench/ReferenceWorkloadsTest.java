package dev.stoker.tools.bench;

import static dev.stoker.tools.bench.ReferenceWorkloads.IMAGE;
import static dev.stoker.tools.bench.ReferenceWorkloads.LABEL;
import static dev.stoker.tools.bench.ReferenceWorkloads.PLANE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.Batch;
import dev.stoker.loader.BatchIterator;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReferenceWorkloadsTest {
  private static final int SAMPLES = 200;
  private static final int BATCH = 16;

  private static LoaderOptions shuffled(int workers) {
    LoaderOptions.Builder b =
        LoaderOptions.builder()
            .batchSize(BATCH)
            .shuffle(true)
            .seed(7)
            .dropLast(true)
            .numWorkers(workers);
    if (workers > 0) {
      b.prefetchFactor(2).persistentWorkers(true);
    }
    return b.build();
  }

  @Test
  void copyRowsHoldTheSourceSamplesOfTheShuffledIndices() {
    CopyWorkload copy = (CopyWorkload) ReferenceWorkloads.copy(SAMPLES, 1);
    float[] row = new float[3 * PLANE];
    Set<Integer> seen = new HashSet<>();
    try (DataLoader loader = new DataLoader(copy, shuffled(2))) {
      for (Batch batch : loader) {
        for (int r = 0; r < batch.size(); r++) {
          int sample = (int) batch.sampleIndex(r);
          seen.add(sample);
          batch.copyFloats(IMAGE, r, row, 0);
          for (int e = 0; e < row.length; e++) {
            assertThat(row[e])
                .as("sample %d element %d", sample, e)
                .isEqualTo(copy.value(sample, e));
          }
          assertThat(batch.getLong(LABEL, r, 0)).isEqualTo(copy.label(sample));
        }
        batch.close();
      }
      assertThat(loader.slotsOut()).isZero();
    }
    assertThat(seen).hasSize(SAMPLES / BATCH * BATCH);
  }

  @Test
  void copyValuesAreInZeroToOneAndLabelsInZeroToNine() {
    CopyWorkload copy = (CopyWorkload) ReferenceWorkloads.copy(20, 3);
    Set<Long> labels = new HashSet<>();
    for (int s = 0; s < 20; s++) {
      for (int e = 0; e < 3 * PLANE; e += 97) {
        assertThat(copy.value(s, e)).isGreaterThanOrEqualTo(0f).isLessThan(1f);
      }
      labels.add(copy.label(s));
    }
    assertThat(labels).allSatisfy(l -> assertThat(l).isBetween(0L, 9L));
    assertThat(copy.value(0, 0)).isNotEqualTo(copy.value(0, 1));
  }

  @Test
  void normalizeWritesTheImageNetFormulaForEveryChannel() {
    NormalizeWorkload normalize = (NormalizeWorkload) ReferenceWorkloads.normalize(SAMPLES, 2);
    double[] mean = ReferenceWorkloads.mean();
    double[] std = ReferenceWorkloads.std();
    int[] elements = {0, 1, PLANE - 1, PLANE, PLANE + 4095, 2 * PLANE, 3 * PLANE - 1, 5000};
    try (DataLoader loader = new DataLoader(normalize, shuffled(0))) {
      BatchIterator epoch = loader.iterator();
      for (int b = 0; b < 3; b++) {
        try (Batch batch = epoch.next()) {
          for (int r = 0; r < batch.size(); r++) {
            int sample = (int) batch.sampleIndex(r);
            for (int e : elements) {
              int c = e / PLANE;
              double expected = (normalize.pixel(sample, e) / 255.0 - mean[c]) / std[c];
              assertThat((double) batch.getFloat(IMAGE, r, e))
                  .as("sample %d element %d", sample, e)
                  .isCloseTo(expected, within(1e-5));
            }
            assertThat(batch.getLong(LABEL, r, 0)).isEqualTo(normalize.label(sample));
          }
        }
      }
      epoch.close();
    }
  }

  @Test
  void normalizeCoversTheWholeByteRange() {
    NormalizeWorkload normalize = (NormalizeWorkload) ReferenceWorkloads.normalize(4, 5);
    int min = 255;
    int max = 0;
    for (int e = 0; e < 3 * PLANE; e++) {
      min = Math.min(min, normalize.pixel(3, e));
      max = Math.max(max, normalize.pixel(3, e));
    }
    assertThat(min).isZero();
    assertThat(max).isEqualTo(255);
  }

  @Test
  void everyImageWorkloadWritesFloatImagesOf49152Bytes() {
    assertThat(ReferenceWorkloads.NAMES)
        .containsExactly("copy", "normalize", "stream", "typed", "typed-stream");
    for (String name : List.of("copy", "normalize", "stream")) {
      Workload workload = ReferenceWorkloads.of(name, 3, 0);
      assertThat(workload.name()).isEqualTo(name);
      assertThat(workload.bytesPerSample()).isEqualTo(49_152);
      assertThat(workload.schema()).isEqualTo(ReferenceWorkloads.SCHEMA);
      assertThat(workload.samples()).isEqualTo(3);
    }
    assertThat(((CopyStream) ReferenceWorkloads.of("stream", 3, 0)).chunkRows())
        .isEqualTo(ReferenceWorkloads.DEFAULT_CHUNK_ROWS)
        .isEqualTo(4096);
  }

  @Test
  void badNamesAndCountsAreRejectedNamingTheValue() {
    assertThatThrownBy(() -> ReferenceWorkloads.of("resize", 10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "workload: 'resize' (expected one of: copy, normalize, stream, typed, "
                + "typed-stream)");
    assertThatThrownBy(() -> ReferenceWorkloads.copy(0, 0))
        .hasMessage("samples: 0 (expected: > 0)");
    assertThatThrownBy(() -> ReferenceWorkloads.normalize(-1, 0))
        .hasMessage("samples: -1 (expected: > 0)");
    assertThatThrownBy(() -> ReferenceWorkloads.stream(0, 0, 16))
        .hasMessage("samples: 0 (expected: > 0)");
    assertThatThrownBy(() -> ReferenceWorkloads.stream(10, 0, 0))
        .hasMessage("chunkRows: 0 (expected: 1..21845, so that a chunk's images fit in 1 GiB)");
    assertThatThrownBy(() -> ReferenceWorkloads.stream(10, 0, 21_846))
        .hasMessageStartingWith("chunkRows: 21846 (expected: 1..21845");
  }
}
