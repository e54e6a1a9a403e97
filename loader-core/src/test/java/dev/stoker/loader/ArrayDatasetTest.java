package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.loader.metrics.SkippedSample;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ArrayDatasetTest {
  private static final Schema IMAGES =
      Schema.of(Field.of("image", DType.FLOAT32, 3, 2, 2), Field.scalar("label", DType.INT64));

  /** Sample i: image values i*100 + e, label i; the label a Number on even i, a long[1] on odd. */
  private static Object[] image(int i) {
    float[] image = new float[12];
    for (int e = 0; e < image.length; e++) {
      image[e] = i * 100 + e;
    }
    return new Object[] {image, i % 2 == 0 ? (Object) (long) i : new long[] {i}};
  }

  private static LoaderOptions.Builder options(int batchSize, int numWorkers) {
    return LoaderOptions.builder().batchSize(batchSize).numWorkers(numWorkers);
  }

  /** Runs epoch 0, failing the test if it throws, and returns the batches' labels (field 1). */
  private static List<Long> labels(DataLoader loader, List<Integer> sizes) {
    List<Long> labels = new ArrayList<>();
    for (Batch batch : loader.epoch(0)) {
      sizes.add(batch.size());
      for (int r = 0; r < batch.size(); r++) {
        labels.add(batch.getLong(1, r, 0));
      }
    }
    return labels;
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldYieldTheArraysValuesWithScalarLabelsAsNumberOrLongArray(int numWorkers) {
    DataLoader loader =
        new DataLoader(
            ArrayDataset.of(IMAGES, 10, ArrayDatasetTest::image), options(4, numWorkers).build());
    List<Integer> sizes = new ArrayList<>();
    List<Long> labels = new ArrayList<>();
    try {
      for (Batch batch : loader.epoch(0)) {
        sizes.add(batch.size());
        for (int r = 0; r < batch.size(); r++) {
          long label = batch.getLong(1, r, 0);
          labels.add(label);
          float[] row = new float[12];
          batch.copyFloats(0, r, row, 0);
          assertThat(row)
              .as("image of sample %d", label)
              .containsExactly((float[]) image((int) label)[0]);
          assertThat(batch.getFloat(0, r, 11)).isEqualTo(label * 100 + 11);
        }
      }
      assertThat(sizes).containsExactly(4, 4, 2);
      assertThat(labels).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldYieldUInt8Int32AndFloat64FieldsFromArraysAndNumbers() {
    Schema schema =
        Schema.of(
            Field.of("pixels", DType.UINT8, 5),
            Field.of("ids", DType.INT32, 2),
            Field.of("weights", DType.FLOAT64, 3),
            Field.scalar("flag", DType.UINT8),
            Field.scalar("count", DType.INT32),
            Field.scalar("score", DType.FLOAT64),
            Field.scalar("label", DType.INT64));
    ArrayDataset dataset =
        ArrayDataset.of(
            schema,
            6,
            i ->
                new Object[] {
                  new byte[] {(byte) i, (byte) 127, (byte) 128, (byte) 255, 0},
                  new int[] {-i, Integer.MAX_VALUE - i},
                  new double[] {i + 0.5, -i, Math.PI * i},
                  250 + i, // a Number for a uint8 scalar, 250..255
                  i % 2 == 0 ? (Object) (-7 * i) : new int[] {-7 * i},
                  i % 2 == 0 ? (Object) (i / 4.0) : new double[] {i / 4.0},
                  (long) i
                });
    DataLoader loader = new DataLoader(dataset, options(4, 1).prefetchFactor(1).build());
    int seen = 0;
    try {
      for (Batch batch : loader.epoch(0)) {
        for (int r = 0; r < batch.size(); r++) {
          int i = (int) batch.getLong(6, r, 0);
          assertThat(
                  new int[] {
                    batch.getUInt8(0, r, 0),
                    batch.getUInt8(0, r, 1),
                    batch.getUInt8(0, r, 2),
                    batch.getUInt8(0, r, 3),
                    batch.getUInt8(0, r, 4)
                  })
              .containsExactly(i, 127, 128, 255, 0);
          assertThat(batch.getInt(1, r, 0)).isEqualTo(-i);
          assertThat(batch.getInt(1, r, 1)).isEqualTo(Integer.MAX_VALUE - i);
          assertThat(batch.getDouble(2, r, 0)).isEqualTo(i + 0.5);
          assertThat(batch.getDouble(2, r, 1)).isEqualTo(-i);
          assertThat(batch.getDouble(2, r, 2)).isEqualTo(Math.PI * i);
          assertThat(batch.getUInt8(3, r, 0)).isEqualTo(250 + i);
          assertThat(batch.getInt(4, r, 0)).isEqualTo(-7 * i);
          assertThat(batch.getDouble(5, r, 0)).isEqualTo(i / 4.0);
          seen++;
        }
      }
      assertThat(seen).isEqualTo(6);
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldFailTheBatchWhenAnArrayHasTheWrongLength() {
    ArrayDataset dataset =
        ArrayDataset.of(IMAGES, 8, i -> i == 3 ? new Object[] {new float[5], (long) i} : image(i));
    DataLoader loader = new DataLoader(dataset, options(4, 0).build());
    try {
      assertThatThrownBy(() -> labels(loader, new ArrayList<>()))
          .isInstanceOf(BatchLoadException.class)
          .hasMessage(
              "loader '"
                  + loader.name()
                  + "' epoch 0 batch 0 (fill): sample 3 (row 3 of "
                  + "4): java.lang.IllegalArgumentException: "
                  + "field 'image' sample 3: 5 values (expected: 12 = [3,2,2]); to skip bad samples, "
                  + "set onBadSample=skip")
          .hasRootCauseInstanceOf(IllegalArgumentException.class)
          .hasRootCauseMessage("field 'image' sample 3: 5 values (expected: 12 = [3,2,2])");
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldFailTheBatchWhenAnArrayHasTheWrongTypeNamingTheJavaTypeExpected() {
    ArrayDataset dataset =
        ArrayDataset.of(IMAGES, 8, i -> i == 6 ? new Object[] {new int[12], (long) i} : image(i));
    DataLoader loader = new DataLoader(dataset, options(4, 2).build());
    try {
      assertThatThrownBy(() -> labels(loader, new ArrayList<>()))
          .isInstanceOf(BatchLoadException.class)
          .hasMessageContaining("epoch 0 batch 1 (fill): sample 6 (row 2 of 4)")
          .hasRootCauseMessage("field 'image' sample 6: int[] (expected: a float[] array)");
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldOfferANumberForAOneElementFieldWhenItsTypeIsWrong() {
    ArrayDataset dataset =
        ArrayDataset.of(
            IMAGES, 4, i -> i == 1 ? new Object[] {image(i)[0], new int[] {1}} : image(i));
    DataLoader loader = new DataLoader(dataset, options(4, 0).build());
    try {
      assertThatThrownBy(() -> labels(loader, new ArrayList<>()))
          .isInstanceOf(BatchLoadException.class)
          .hasRootCauseMessage(
              "field 'label' sample 1: int[] (expected: a long[] array or a Number)");
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"300", "-1", "3.7"})
  void shouldRefuseANumberTheFieldCannotHoldRatherThanTruncateIt(String text) {
    Schema schema = Schema.of(Field.scalar("flag", DType.UINT8));
    Number value = text.contains(".") ? (Number) Double.valueOf(text) : Integer.valueOf(text);
    DataLoader loader =
        new DataLoader(
            ArrayDataset.of(schema, 2, i -> new Object[] {value}), options(2, 0).build());
    try {
      assertThatThrownBy(() -> labels(loader, new ArrayList<>()))
          .isInstanceOf(BatchLoadException.class)
          .hasRootCauseMessage(
              "field 'flag' sample 0: " + text + " (expected: a whole number in 0..255 for uint8)");
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  /** The cases: each fails the batch rather than store a different value. */
  @ParameterizedTest(name = "{0} <- {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "int64|1e19|1.0E19 (expected: a whole number in -9223372036854775808..9223372036854775807 "
            + "for int64)",
        "uint8|18446744073709551623|18446744073709551623 (expected: a whole number in 0..255 "
            + "for uint8)",
        "float32|1e300|1.0E300 (expected: a number in -3.4028235E38..3.4028235E38 for float32, "
            + "or NaN or an infinity)"
      })
  void shouldFailTheBatchRatherThanStoreADifferentNumber(
      String dtype, String text, String expected) {
    Number value = dtype.equals("uint8") ? (Number) new BigInteger(text) : Double.valueOf(text);
    Schema schema = Schema.of(Field.scalar("x", DType.parse(dtype)));
    DataLoader loader =
        new DataLoader(
            ArrayDataset.of(schema, 2, i -> new Object[] {value}), options(2, 0).build());
    try {
      assertThatThrownBy(() -> labels(loader, new ArrayList<>()))
          .isInstanceOf(BatchLoadException.class)
          .hasMessageContaining("epoch 0 batch 0 (fill): sample 0 (row 0 of 2)")
          .hasRootCauseInstanceOf(IllegalArgumentException.class)
          .hasRootCauseMessage("field 'x' sample 0: " + expected);
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldRefuseANumberForAFieldOfSeveralElements() {
    ArrayDataset dataset =
        ArrayDataset.of(IMAGES, 4, i -> i == 2 ? new Object[] {1.0f, (long) i} : image(i));
    DataLoader loader = new DataLoader(dataset, options(4, 0).build());
    try {
      assertThatThrownBy(() -> labels(loader, new ArrayList<>()))
          .isInstanceOf(BatchLoadException.class)
          .hasRootCauseMessage("field 'image' sample 2: Float (expected: a float[] array)");
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldFailTheBatchWhenAValueIsNull() {
    ArrayDataset dataset =
        ArrayDataset.of(IMAGES, 8, i -> i == 5 ? new Object[] {image(i)[0], null} : image(i));
    DataLoader loader = new DataLoader(dataset, options(4, 1).build());
    try {
      assertThatThrownBy(() -> labels(loader, new ArrayList<>()))
          .isInstanceOf(BatchLoadException.class)
          .hasMessageContaining("epoch 0 batch 1 (fill): sample 5 (row 1 of 4)")
          .hasRootCauseMessage(
              "field 'label' sample 5: null (expected: a long[] array or a Number)");
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldFailTheBatchWhenASampleHasTheWrongNumberOfValues() {
    ArrayDataset dataset =
        ArrayDataset.of(IMAGES, 8, i -> i == 2 ? new Object[] {image(i)[0]} : image(i));
    DataLoader loader = new DataLoader(dataset, options(4, 0).build());
    try {
      assertThatThrownBy(() -> labels(loader, new ArrayList<>()))
          .isInstanceOf(BatchLoadException.class)
          .hasRootCauseMessage("sample 2: 1 values (expected: 2, one per field [image, label])");
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldFailTheBatchWhenTheFunctionReturnsNull() {
    ArrayDataset dataset = ArrayDataset.of(IMAGES, 8, i -> i == 4 ? null : image(i));
    DataLoader loader = new DataLoader(dataset, options(4, 0).build());
    try {
      assertThatThrownBy(() -> labels(loader, new ArrayList<>()))
          .isInstanceOf(BatchLoadException.class)
          .hasRootCauseMessage(
              "sample 4: null instead of values (expected: 2, one per field [image, label])");
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 3})
  void shouldSkipAndCountBadSamplesUnderOnBadSampleSkip(int numWorkers) {
    ArrayDataset dataset =
        ArrayDataset.of(
            IMAGES,
            12,
            i ->
                switch (i) {
                  case 1 -> new Object[] {new float[5], (long) i};
                  case 4 -> new Object[] {new int[12], (long) i};
                  case 7 -> new Object[] {image(i)[0], null};
                  case 11 -> new Object[] {image(i)[0]};
                  default -> image(i);
                });
    DataLoader loader =
        new DataLoader(dataset, options(4, numWorkers).onBadSample(OnBadSample.SKIP).build());
    try {
      List<Integer> sizes = new ArrayList<>();
      assertThat(labels(loader, sizes)).containsExactly(0L, 2L, 3L, 5L, 6L, 8L, 9L, 10L);
      assertThat(sizes).containsExactly(3, 2, 3);
      EpochMetrics metrics = loader.metrics().last();
      assertThat(metrics.skippedCount()).isEqualTo(4);
      assertThat(metrics.samples()).isEqualTo(8);
      assertThat(metrics.skipped())
          .extracting(SkippedSample::sampleIndex)
          .containsExactlyInAnyOrder(1, 4, 7, 11);
      assertThat(metrics.skipped())
          .filteredOn(s -> s.sampleIndex() == 1)
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.batch()).isZero();
                assertThat(s.reason())
                    .isEqualTo(
                        "java.lang.IllegalArgumentException: field 'image' "
                            + "sample 1: 5 values (expected: 12 = [3,2,2])");
              });
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldZeroTheRowOfASkippedSampleThatWroteSomeFieldsBeforeFailing() {
    // Sample 3 writes its image, then fails on its label; it is the last of its batch.
    ArrayDataset dataset =
        ArrayDataset.of(IMAGES, 4, i -> i == 3 ? new Object[] {image(i)[0], "three"} : image(i));
    DataLoader loader =
        new DataLoader(dataset, options(4, 0).onBadSample(OnBadSample.SKIP).build());
    try (BatchIterator it = loader.epoch(0).iterator()) {
      Batch batch = it.next();
      assertThat(batch.size()).isEqualTo(3);
      assertThat(batch.skipped()).isEqualTo(1);
      int row3 = loader.layout().rowOffset(0, 3);
      for (int e = 0; e < 12; e++) {
        assertThat(batch.buffer().getFloat(row3 + 4 * e)).as("element %d", e).isZero();
      }
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldRejectANegativeSize() {
    assertThatThrownBy(() -> ArrayDataset.of(IMAGES, -1, ArrayDatasetTest::image))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("size: -1 (expected: >= 0)");
  }
}
