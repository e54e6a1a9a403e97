package dev.stoker.tools.bench;

import static dev.stoker.tools.bench.ReferenceWorkloads.IMAGE;
import static dev.stoker.tools.bench.ReferenceWorkloads.LABEL;
import static dev.stoker.tools.bench.ReferenceWorkloads.PLANE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.BatchIterator;
import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.StreamRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CopyStreamTest {
  private static final int SAMPLES = 200;
  private static final int BATCH = 16;

  /** Not a multiple of the batch size, so chunks straddle batches; the last chunk has 8 rows. */
  private static final int CHUNK_ROWS = 48;

  private static final CopyStream STREAM =
      (CopyStream) ReferenceWorkloads.stream(SAMPLES, 1, CHUNK_ROWS);

  /** Sample index by its first two values, to tell which sample a row holds from its content. */
  private static final Map<Long, Integer> BY_CONTENT = new HashMap<>();

  static {
    for (int s = 0; s < SAMPLES; s++) {
      BY_CONTENT.put(key(STREAM.value(s, 0), STREAM.value(s, 1)), s);
    }
  }

  private static long key(float first, float second) {
    return (long) Float.floatToRawIntBits(first) << 32
        | Float.floatToRawIntBits(second) & 0xFFFF_FFFFL;
  }

  private static LoaderOptions options(boolean shuffle, int workers) {
    LoaderOptions.Builder b =
        LoaderOptions.builder()
            .batchSize(BATCH)
            .shuffle(shuffle)
            .seed(7)
            .dropLast(false)
            .numWorkers(workers);
    if (workers > 0) {
      b.prefetchFactor(2).persistentWorkers(true);
    }
    return b.build();
  }

  /** The sample at each stream row of an epoch, by the chunk order the stream says it uses. */
  private static int[] expectedOrder(StreamRequest request) {
    int[] samples = new int[SAMPLES];
    int row = 0;
    for (int chunk : STREAM.chunkOrder(request)) {
      for (int s = chunk * CHUNK_ROWS; s < Math.min(SAMPLES, (chunk + 1) * CHUNK_ROWS); s++) {
        samples[row++] = s;
      }
    }
    assertThat(row).isEqualTo(SAMPLES);
    return samples;
  }

  /** Reads one epoch through a loader: the sample each row holds, told by content. */
  private static List<Integer> epoch(DataLoader loader, int[] fullyChecked) {
    List<Integer> seen = new ArrayList<>();
    float[] row = new float[3 * PLANE];
    try (BatchIterator epoch = loader.iterator()) {
      while (epoch.hasNext()) {
        try (Batch batch = epoch.next()) {
          for (int r = 0; r < batch.size(); r++) {
            Integer sample =
                BY_CONTENT.get(key(batch.getFloat(IMAGE, r, 0), batch.getFloat(IMAGE, r, 1)));
            assertThat(sample).as("batch %d row %d", batch.index(), r).isNotNull();
            assertThat(batch.sampleIndex(r)).isEqualTo(seen.size());
            assertThat(batch.getLong(LABEL, r, 0)).isEqualTo(STREAM.label(sample));
            assertThat(batch.getFloat(IMAGE, r, 3 * PLANE - 1))
                .isEqualTo(STREAM.value(sample, 3 * PLANE - 1));
            for (int position : fullyChecked) {
              if (position == seen.size()) {
                batch.copyFloats(IMAGE, r, row, 0);
                for (int e = 0; e < row.length; e++) {
                  assertThat(row[e])
                      .as("sample %d element %d", sample, e)
                      .isEqualTo(STREAM.value(sample, e));
                }
              }
            }
            seen.add(sample);
          }
        }
      }
    }
    return seen;
  }

  @Test
  void shuffledEpochsStreamEverySampleOnceByChunkInTheOrderOfSeedAndEpoch() {
    int[] fullyChecked = {0, 47, 48, 100, SAMPLES - 1};
    try (DataLoader loader = new DataLoader(STREAM, options(true, 2))) {
      List<Integer> first = epoch(loader, fullyChecked);
      List<Integer> second = epoch(loader, fullyChecked);

      assertThat(first).hasSize(SAMPLES).doesNotHaveDuplicates();
      assertThat(second).hasSize(SAMPLES).doesNotHaveDuplicates();
      assertThat(first).containsExactly(box(expectedOrder(new StreamRequest(0, true, 7, 0, 1))));
      assertThat(second).containsExactly(box(expectedOrder(new StreamRequest(1, true, 7, 0, 1))));
      assertThat(first).isNotEqualTo(second);
      assertThat(loader.slotsOut()).isZero();
    }
  }

  @Test
  void withoutShuffleRowsComeInSampleOrder() {
    try (DataLoader loader = new DataLoader(STREAM, options(false, 0))) {
      List<Integer> samples = epoch(loader, new int[] {0, 199});

      assertThat(samples).containsExactly(box(expectedOrder(new StreamRequest(0, false, 7, 0, 1))));
      for (int i = 0; i < SAMPLES; i++) {
        assertThat(samples.get(i)).isEqualTo(i);
      }
    }
  }

  @Test
  void holdsTheCopyWorkloadsDataForTheSameSeed() {
    CopyWorkload copy = (CopyWorkload) ReferenceWorkloads.copy(SAMPLES, 1);
    for (int s = 0; s < SAMPLES; s += 13) {
      assertThat(STREAM.label(s)).isEqualTo(copy.label(s));
      for (int e = 0; e < 3 * PLANE; e += 511) {
        assertThat(STREAM.value(s, e)).isEqualTo(copy.value(s, e));
      }
    }
  }

  @Test
  void chunksHaveChunkRowsRowsButTheLastAndTheStreamEndsWithNull() throws Exception {
    assertThat(STREAM.rowCount()).isEqualTo(SAMPLES);
    List<Integer> rows = new ArrayList<>();
    try (ChunkStream stream = STREAM.open(new StreamRequest(3, true, 7, 0, 1))) {
      for (ColumnChunk chunk = stream.next(); chunk != null; chunk = stream.next()) {
        rows.add(chunk.rows());
      }
      assertThat(stream.next()).isNull();
    }
    assertThat(rows).containsExactlyInAnyOrder(48, 48, 48, 48, 8);
  }

  @Test
  void servesOneRankOnly() {
    assertThatThrownBy(() -> STREAM.open(new StreamRequest(0, false, 0, 1, 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("worldSize: 2 (expected: 1; the stream workload serves one rank)");
  }

  private static Integer[] box(int[] values) {
    Integer[] boxed = new Integer[values.length];
    for (int i = 0; i < values.length; i++) {
      boxed[i] = values[i];
    }
    return boxed;
  }
}
