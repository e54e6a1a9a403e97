package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.pipeline.BatchLoadException;
import org.junit.jupiter.api.Test;

/** A sample that leaves a field unwritten would carry another sample's values: it is bad. */
class SampleCompletenessTest {
  private static final Schema SCHEMA = IndexDataset.SCHEMA;

  /** Writes x for every sample, the label for all but sample 5. */
  private static final class ForgetfulDataset implements MapDataset {
    @Override
    public Schema schema() {
      return SCHEMA;
    }

    @Override
    public int size() {
      return 12;
    }

    @Override
    public void write(int index, SampleWriter row) {
      row.putFloats(0, new float[] {index, index + 0.25f, index + 0.5f}, 0, 3);
      if (index != 5) {
        row.putLong(1, 0, index);
      }
    }
  }

  @Test
  void shouldFailASampleThatWroteNothingToAField() {
    DataLoader loader = new DataLoader(new ForgetfulDataset(),
        LoaderOptions.builder().batchSize(4).numWorkers(1).build());
    assertThatThrownBy(() -> loader.epoch(0).forEach(Batch::close))
        .isInstanceOf(BatchLoadException.class)
        .hasMessageContaining("epoch 0 batch 1 (fill): sample 5 (row 1 of 4)")
        .hasRootCauseMessage("sample 5 wrote 0 of the 1 values of field 'label' int64[] "
            + "(expected: every value of every field, or its row would keep another sample's "
            + "values)");
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldSkipSuchASampleUnderOnBadSampleSkip() {
    DataLoader loader = new DataLoader(new ForgetfulDataset(),
        LoaderOptions.builder().batchSize(4).onBadSample(OnBadSample.SKIP).build());
    int rows = 0;
    for (Batch batch : loader.epoch(0)) {
      rows += IndexDataset.labels(batch).length;
    }
    assertThat(rows).isEqualTo(11);
    assertThat(loader.metrics().last().skipped().get(0).reason()).contains("field 'label'");
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldTrustADatasetThatWritesThroughTheRawBuffer() {
    MapDataset raw = new MapDataset() {
      @Override
      public Schema schema() {
        return SCHEMA;
      }

      @Override
      public int size() {
        return 8;
      }

      @Override
      public void write(int index, SampleWriter row) {
        for (int e = 0; e < 3; e++) {
          row.bytes().putFloat(row.offset(0, e), index + 0.25f * e);
        }
        row.bytes().putLong(row.offset(1, 0), index);
      }
    };
    DataLoader loader = new DataLoader(raw, LoaderOptions.builder().batchSize(4).build());
    int rows = 0;
    for (Batch batch : loader.epoch(0)) {
      rows += IndexDataset.labels(batch).length;
    }
    assertThat(rows).isEqualTo(8);
    LoaderLeaks.closeAndCheck(loader);
  }
}
