package dev.stoker.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TypedWorkloadsTest {
  private static final int SAMPLES = 300;
  private static final int BATCH = 16;

  @ParameterizedTest(name = "{0} with {1} worker(s)")
  @CsvSource({"typed, 0", "typed, 2", "typed-stream, 0", "typed-stream, 2"})
  void everyFieldOfEveryRowHoldsItsSourceSample(String name, int workers) {
    Workload workload = ReferenceWorkloads.of(name, SAMPLES, 11, 70);
    TypedColumns data = new TypedColumns(SAMPLES, 11);
    // A stream's rows are known by their position in it: in order, that is the sample.
    boolean shuffle = name.equals("typed");
    LoaderOptions.Builder options =
        LoaderOptions.builder()
            .batchSize(BATCH)
            .shuffle(shuffle)
            .seed(3)
            .dropLast(true)
            .numWorkers(workers);
    if (workers > 0) {
      options.prefetchFactor(2);
    }
    Set<Long> seen = new HashSet<>();
    try (DataLoader loader = workload.newLoader(options.build())) {
      for (Batch batch : loader) {
        for (int r = 0; r < batch.size(); r++) {
          long sample = batch.sampleIndex(r);
          seen.add(sample);
          assertRow(batch, r, (int) sample, data);
        }
        batch.close();
      }
      assertThat(loader.slotsOut()).isZero();
    }
    assertThat(seen).hasSize(SAMPLES / BATCH * BATCH);
  }

  private static void assertRow(Batch batch, int row, int sample, TypedColumns data) {
    int floats = TypedColumns.elements(TypedColumns.FLOATS);
    int doubles = TypedColumns.elements(TypedColumns.DOUBLES);
    int bytes = TypedColumns.elements(TypedColumns.BYTES);
    for (int e = 0; e < floats; e += 37) {
      assertThat(batch.getFloat(TypedColumns.FLOATS, row, e))
          .as("f32 sample %d", sample)
          .isEqualTo(data.floats[sample * floats + e]);
      assertThat(batch.getInt(TypedColumns.INTS, row, e))
          .as("i32 sample %d", sample)
          .isEqualTo(data.ints[sample * floats + e]);
    }
    for (int e = 0; e < doubles; e += 19) {
      assertThat(batch.getDouble(TypedColumns.DOUBLES, row, e))
          .as("f64 sample %d", sample)
          .isEqualTo(data.doubles[sample * doubles + e]);
      assertThat(batch.getLong(TypedColumns.LONGS, row, e))
          .as("i64 sample %d", sample)
          .isEqualTo(data.longs[sample * doubles + e]);
    }
    for (int e = 0; e < bytes; e += 101) {
      assertThat(batch.getUInt8(TypedColumns.BYTES, row, e))
          .as("u8 sample %d", sample)
          .isEqualTo(data.bytes[sample * bytes + e] & 0xff);
    }
  }

  @Test
  void typedWorkloadsNameThemselvesAndCountEveryField() {
    for (String name : new String[] {"typed", "typed-stream"}) {
      Workload workload = ReferenceWorkloads.of(name, 5, 0);
      assertThat(workload.name()).isEqualTo(name);
      assertThat(workload.bytesPerSample()).isEqualTo(5 * 2048);
      assertThat(workload.samples()).isEqualTo(5);
      assertThat(workload.schema().size()).isEqualTo(5);
    }
  }

  @Test
  void badCountsAreRejectedNamingTheValue() {
    assertThatThrownBy(() -> ReferenceWorkloads.typed(0, 0))
        .hasMessage("samples: 0 (expected: > 0)");
    assertThatThrownBy(() -> ReferenceWorkloads.typed(2_000_000, 0))
        .hasMessage("samples: 2000000 (expected: at most 1048575 for the typed workloads)");
    assertThatThrownBy(() -> ReferenceWorkloads.typedStream(10, 0, 0))
        .hasMessage("chunkRows: 0 (expected: > 0)");
  }
}
