package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SchemaAndLayoutTest {

  /** Fields of every dtype and of sizes that are not multiples of the alignment. */
  private static final Schema MIXED =
      Schema.of(
          Field.of("pixels", DType.UINT8, 3, 5, 7),
          Field.scalar("label", DType.INT64),
          Field.of("box", DType.FLOAT32, 4),
          Field.of("mask", DType.INT32, 3),
          Field.of("weight", DType.FLOAT64, 1));

  // --- Field ---

  @Test
  void shouldDescribeAFieldByItsShape() {
    Field image = Field.of("image", DType.FLOAT32, 3, 64, 64);
    assertThat(image.elements()).isEqualTo(3 * 64 * 64);
    assertThat(image.bytesPerSample()).isEqualTo(3L * 64 * 64 * 4);
    assertThat(image.shapeText()).isEqualTo("[3,64,64]");
    assertThat(image).hasToString("image: float32[3,64,64]");
  }

  @Test
  void shouldMakeAScalarOneElementWithAnEmptyShape() {
    Field label = Field.scalar("label", DType.INT64);
    assertThat(label.shape()).isEmpty();
    assertThat(label.elements()).isEqualTo(1);
    assertThat(label.bytesPerSample()).isEqualTo(8);
    assertThat(label.shapeText()).isEqualTo("[]");
  }

  @Test
  void shouldKeepTheShapeFromOutsideChanges() {
    int[] shape = {2, 3};
    Field field = Field.of("x", DType.FLOAT32, shape);
    shape[0] = 100;
    field.shape()[1] = 100;
    assertThat(field.shape()).containsExactly(2, 3);
    assertThat(field.elements()).isEqualTo(6);
  }

  @ParameterizedTest(name = "dim {0}")
  @ValueSource(ints = {0, -1})
  void shouldRejectANonPositiveDimension(int dim) {
    assertThatThrownBy(() -> Field.of("image", DType.FLOAT32, 3, dim, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'image' shape: [3," + dim + ",4] (expected: every dimension > 0)");
  }

  @Test
  void shouldRejectMoreThanIntMaxElementsPerSample() {
    assertThatThrownBy(() -> Field.of("huge", DType.UINT8, 65536, 65536))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "field 'huge' shape: [65536,65536] (expected: at most 2147483647 elements "
                + "per sample)");
  }

  @Test
  void shouldRejectABlankOrMissingFieldName() {
    assertThatThrownBy(() -> Field.of(" ", DType.INT32, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field name: ' ' (expected: a non-blank name)");
    assertThatThrownBy(() -> Field.scalar(null, DType.INT32))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field name: 'null' (expected: a non-blank name)");
  }

  @Test
  void shouldRejectAMissingDType() {
    assertThatThrownBy(() -> Field.of("x", null, 2))
        .isInstanceOf(NullPointerException.class)
        .hasMessage(
            "field 'x' dtype: null (expected one of: uint8, int32, int64, float32, " + "float64)");
  }

  @Test
  void shouldNameTheFieldWhoseShapeIsMissing() {
    assertThatThrownBy(() -> Field.of("image", DType.FLOAT32, (int[]) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage(
            "field 'image' shape: null (expected: the dimensions of one sample, none for "
                + "a scalar)");
  }

  @Test
  void shouldNameTheMissingFieldOfASchema() {
    assertThatThrownBy(() -> Schema.of((Field) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage(
            "schema field 0 of 1: null (expected: a Field, e.g. Field.of(\"x\", "
                + "DType.FLOAT32, 3))");
    assertThatThrownBy(() -> Schema.of(Field.scalar("label", DType.INT64), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageStartingWith("schema field 1 of 2: null");
    assertThatThrownBy(() -> Schema.of((Field[]) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("schema fields: null (expected: at least one field)");
    assertThatThrownBy(() -> Schema.of((List<Field>) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("schema fields: null (expected: at least one field)");
  }

  @Test
  void shouldSayThatAnIndexOutsideTheSchemaIsAFieldIndex() {
    Schema schema = Schema.of(Field.of("x", DType.FLOAT32, 3), Field.scalar("label", DType.INT64));
    String message =
        "field index: 7 (expected: 0 <= field index < 2; the fields: [x: float32[3], "
            + "label: int64[]])";
    assertThatThrownBy(() -> schema.field(7))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage(message);
    assertThatThrownBy(() -> schema.field(-1))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageStartingWith("field index: -1 ");
    BatchLayout layout = new BatchLayout(schema, 4);
    assertThatThrownBy(() -> layout.rowOffset(7, 0)).hasMessage(message);
    assertThatThrownBy(() -> layout.columnOffset(7)).hasMessage(message);
    assertThatThrownBy(() -> layout.rowStride(7)).hasMessage(message);
    assertThatThrownBy(() -> layout.columnBytes(7)).hasMessage(message);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1})
  void shouldNameTheFieldIndexADatasetWritesOutsideTheSchema(int numWorkers) {
    MapDataset writingField7 =
        new MapDataset() {
          @Override
          public Schema schema() {
            return IndexDataset.SCHEMA;
          }

          @Override
          public int size() {
            return 8;
          }

          @Override
          public void write(int index, SampleWriter row) {
            row.putFloat(7, 0, 1f);
          }
        };
    DataLoader loader =
        new DataLoader(
            writingField7, LoaderOptions.builder().batchSize(4).numWorkers(numWorkers).build());
    assertThatThrownBy(() -> loader.epoch(0).iterator().next())
        .hasMessageContaining("sample 0")
        .hasRootCauseInstanceOf(IndexOutOfBoundsException.class)
        .hasRootCauseMessage(
            "field index: 7 (expected: 0 <= field index < 2; the fields: "
                + "[x: float32[3], label: int64[]])");
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldCompareFieldsByNameDTypeAndShape() {
    assertThat(Field.of("x", DType.FLOAT32, 2, 3))
        .isEqualTo(Field.of("x", DType.FLOAT32, 2, 3))
        .hasSameHashCodeAs(Field.of("x", DType.FLOAT32, 2, 3))
        .isNotEqualTo(Field.of("x", DType.FLOAT32, 3, 2))
        .isNotEqualTo(Field.of("x", DType.FLOAT64, 2, 3))
        .isNotEqualTo(Field.of("y", DType.FLOAT32, 2, 3));
  }

  // --- Schema ---

  @Test
  void shouldRejectASchemaWithoutFields() {
    assertThatThrownBy(Schema::of)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("schema: no fields (expected: at least one field)");
    assertThatThrownBy(() -> Schema.of(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("schema: no fields (expected: at least one field)");
  }

  @Test
  void shouldRejectDuplicateFieldNames() {
    assertThatThrownBy(
            () ->
                Schema.of(
                    Field.of("x", DType.FLOAT32, 2),
                    Field.scalar("label", DType.INT64),
                    Field.of("x", DType.INT32, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("schema: field 'x' appears twice (expected: unique names)");
  }

  @Test
  void shouldFindFieldsByName() {
    assertThat(MIXED.size()).isEqualTo(5);
    assertThat(MIXED.names()).containsExactly("pixels", "label", "box", "mask", "weight");
    assertThat(MIXED.indexOf("box")).isEqualTo(2);
    assertThat(MIXED.field("mask")).isEqualTo(Field.of("mask", DType.INT32, 3));
    assertThat(MIXED.bytesPerSample()).isEqualTo(105 + 8 + 16 + 12 + 8);
  }

  @Test
  void shouldListTheNamesWhenAFieldIsUnknown() {
    assertThatThrownBy(() -> MIXED.indexOf("image"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field: 'image' (expected one of: pixels, label, box, mask, weight)");
    assertThatThrownBy(() -> MIXED.field("Label"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field: 'Label' (expected one of: pixels, label,");
  }

  @Test
  void shouldNotChangeWhenTheListItCameFromChanges() {
    List<Field> fields = new ArrayList<>(List.of(Field.scalar("a", DType.INT32)));
    Schema schema = Schema.of(fields);
    fields.add(Field.scalar("b", DType.INT32));
    assertThat(schema.names()).containsExactly("a");
    assertThatThrownBy(() -> schema.fields().add(Field.scalar("c", DType.INT32)))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  // --- DType ---

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "uint8, UINT8, 1",
    "INT32, INT32, 4",
    "int64, INT64, 8",
    "Float32, FLOAT32, 4",
    "float64, FLOAT64, 8"
  })
  void shouldParseADTypeLabelIgnoringCase(String label, DType expected, int bytes) {
    assertThat(DType.parse(label)).isEqualTo(expected);
    assertThat(expected.byteSize()).isEqualTo(bytes);
    assertThat(DType.parse(expected.label())).isEqualTo(expected);
  }

  @Test
  void shouldRejectAnUnknownDTypeListingTheKnownOnes() {
    assertThatThrownBy(() -> DType.parse("float16"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("dtype: 'float16' (expected one of: uint8, int32, int64, float32, float64)");
  }

  // --- BatchLayout ---

  @ParameterizedTest(name = "batchSize={0}")
  @ValueSource(ints = {1, 3, 7, 64, 1000})
  void shouldAlignEveryColumnTo64Bytes(int batchSize) {
    BatchLayout layout = new BatchLayout(MIXED, batchSize);
    for (int c = 0; c < MIXED.size(); c++) {
      assertThat(layout.columnOffset(c) % BatchLayout.ALIGNMENT).as("column %d", c).isZero();
    }
    assertThat(layout.slotBytes() % BatchLayout.ALIGNMENT).isZero();
  }

  @ParameterizedTest(name = "batchSize={0}")
  @ValueSource(ints = {1, 3, 7, 64, 1000})
  void shouldPlaceColumnsInOrderWithoutOverlapInsideTheSlot(int batchSize) {
    BatchLayout layout = new BatchLayout(MIXED, batchSize);
    assertThat(layout.columnOffset(0)).isZero();
    for (int c = 0; c < MIXED.size(); c++) {
      assertThat(layout.rowStride(c)).isEqualTo(MIXED.field(c).bytesPerSample());
      assertThat(layout.columnBytes(c)).isEqualTo(MIXED.field(c).bytesPerSample() * batchSize);
      long end = layout.columnOffset(c) + layout.columnBytes(c);
      if (c + 1 < MIXED.size()) {
        assertThat(layout.columnOffset(c + 1))
            .as("column %d starts after column %d", c + 1, c)
            .isGreaterThanOrEqualTo((int) end)
            .isLessThan((int) end + BatchLayout.ALIGNMENT);
      } else {
        assertThat((long) layout.slotBytes())
            .as("slot covers the last column")
            .isGreaterThanOrEqualTo(end)
            .isLessThan(end + BatchLayout.ALIGNMENT);
      }
    }
  }

  @Test
  void shouldComputeRowOffsetsFromColumnOffsetAndStride() {
    BatchLayout layout = new BatchLayout(MIXED, 10);
    // pixels: 105 B/row, 1050 B -> 1088; label: 8 B/row, 80 B -> 1088 + 128 = 1216;
    // box: 16 B/row, 160 B -> 1216 + 192 = 1408; mask: 12 B/row, 120 B -> 1408 + 128 = 1536;
    // weight: 8 B/row, 80 B -> 1536 + 128 = 1664.
    assertThat(
            new int[] {
              layout.columnOffset(0),
              layout.columnOffset(1),
              layout.columnOffset(2),
              layout.columnOffset(3),
              layout.columnOffset(4)
            })
        .containsExactly(0, 1088, 1216, 1408, 1536);
    assertThat(layout.slotBytes()).isEqualTo(1664);
    assertThat(layout.rowOffset(0, 0)).isZero();
    assertThat(layout.rowOffset(0, 9)).isEqualTo(9 * 105);
    assertThat(layout.rowOffset(1, 3)).isEqualTo(1088 + 3 * 8);
    assertThat(layout.rowOffset(2, 9)).isEqualTo(1216 + 9 * 16);
    assertThat(layout.rowOffset(3, 5)).isEqualTo(1408 + 5 * 12);
    assertThat(layout.rowOffset(4, 9) + layout.rowStride(4)).isLessThanOrEqualTo(1664);
    assertThat(layout.schema()).isSameAs(MIXED);
    assertThat(layout.batchSize()).isEqualTo(10);
  }

  @Test
  void shouldRejectANonPositiveBatchSize() {
    assertThatThrownBy(() -> new BatchLayout(MIXED, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batchSize: 0 (expected: > 0)");
  }

  @Test
  void shouldRefuseABatchTooLargeForOneSlotNamingBatchSize() {
    Schema images = Schema.of(Field.of("image", DType.FLOAT32, 3, 512, 512));
    assertThat(new BatchLayout(images, 680).slotBytes()).isEqualTo(680 * 3 * 512 * 512 * 4);
    assertThatThrownBy(() -> new BatchLayout(images, 700))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "batchSize: 700 gives a batch of 2202009600+ bytes for "
                + "Schema[image: float32[3,512,512]]")
        .hasMessageEndingWith("(expected: at most 2147483583 bytes per batch; lower batchSize)");
  }

  @Test
  void shouldRefuseABatchWhoseByteCountOverflowsALong() {
    // 8 x (2^31 - 1) bytes per sample times 2^31 - 1 samples is more than 2^63.
    Schema huge = Schema.of(Field.of("huge", DType.FLOAT64, Integer.MAX_VALUE));
    assertThatThrownBy(() -> new BatchLayout(huge, Integer.MAX_VALUE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("batchSize: 2147483647 gives a batch of ")
        .hasMessageEndingWith("bytes per batch; lower batchSize)");
  }
}
