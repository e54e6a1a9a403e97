package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    DataLoader loader =
        new DataLoader(
            new ForgetfulDataset(), LoaderOptions.builder().batchSize(4).numWorkers(1).build());
    assertThatThrownBy(() -> loader.epoch(0).forEach(Batch::close))
        .isInstanceOf(BatchLoadException.class)
        .hasMessageContaining("epoch 0 batch 1 (fill): sample 5 (row 1 of 4)")
        .hasRootCauseMessage(
            "sample 5 wrote 0 of the 1 values of field 'label' int64[] "
                + "(expected: every value of every field, or its row would keep another sample's "
                + "values)");
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldSkipSuchASampleUnderOnBadSampleSkip() {
    DataLoader loader =
        new DataLoader(
            new ForgetfulDataset(),
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
    MapDataset raw =
        new MapDataset() {
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

  /** A dataset of {@code fields} float32[5] fields whose sample 6 writes part of one. */
  private static MapDataset partial(int fields, int shortField, int written, boolean gaps) {
    Field[] schema = new Field[fields];
    for (int f = 0; f < fields; f++) {
      schema[f] = Field.of("f" + f, DType.FLOAT32, 5);
    }
    Schema wide = Schema.of(schema);
    return new MapDataset() {
      @Override
      public Schema schema() {
        return wide;
      }

      @Override
      public int size() {
        return 8;
      }

      @Override
      public void write(int index, SampleWriter row) {
        for (int f = 0; f < fields; f++) {
          if (index != 6 || f != shortField) {
            row.putFloats(f, new float[5], 0, 5);
          } else if (gaps) {
            for (int e = 0; e < 5; e += 2) {
              row.putFloat(f, e, index); // elements 0, 2, 4: 3 of 5, with gaps
            }
            row.putFloat(f, 2, index); // again: still 3 of 5
          } else {
            row.putFloats(f, new float[] {1, 2, 3}, 0, written);
          }
        }
      }
    };
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "{0} fields, field {1}, gaps={2}")
  @org.junit.jupiter.params.provider.CsvSource({
    "2, 1, false",
    "2, 0, true",
    "70, 69, false",
    "70, 64, true",
    "200, 130, false"
  })
  void shouldFailASampleThatWroteOnlyPartOfAField(int fields, int shortField, boolean gaps) {
    DataLoader loader =
        new DataLoader(
            partial(fields, shortField, 3, gaps),
            LoaderOptions.builder().batchSize(4).numWorkers(1).build());
    assertThatThrownBy(() -> loader.epoch(0).forEach(Batch::close))
        .isInstanceOf(BatchLoadException.class)
        .hasMessageContaining("epoch 0 batch 1 (fill): sample 6 (row 2 of 4)")
        .hasRootCauseMessage(
            "sample 6 wrote 3 of the 5 values of field 'f"
                + shortField
                + "' float32[5] (expected: every value of every field, or its row would keep "
                + "another sample's values)");
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldAcceptAFieldWrittenElementByElementInAnyOrder() {
    Schema schema = Schema.of(Field.of("x", DType.INT32, 70));
    MapDataset shuffled =
        new MapDataset() {
          @Override
          public Schema schema() {
            return schema;
          }

          @Override
          public int size() {
            return 4;
          }

          @Override
          public void write(int index, SampleWriter row) {
            for (int e = 69; e >= 0; e -= 2) {
              row.putInt(0, e, e);
            }
            row.putInts(0, 0, new int[69], 0, 69); // overlaps: the odd elements and the rest again
          }
        };
    DataLoader loader = new DataLoader(shuffled, LoaderOptions.builder().batchSize(2).build());
    int batches = 0;
    for (Batch batch : loader.epoch(0)) {
      assertThat(batch.getInt(0, 1, 69)).isEqualTo(69);
      batches++;
    }
    assertThat(batches).isEqualTo(2);
    LoaderLeaks.closeAndCheck(loader);
  }
}
