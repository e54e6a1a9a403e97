package dev.stoker.spark.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.spark.shard.ShardBlock;
import dev.stoker.spark.shard.ShardLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Internal rows, as Spark's plans make them (unsafe) and otherwise (generic), into blocks. */
class RowCopierTest {
  private static final StructType INPUT =
      new StructType()
          .add("x", DataTypes.createArrayType(DataTypes.FloatType, true))
          .add("d", DataTypes.createArrayType(DataTypes.DoubleType, false))
          .add("px", DataTypes.BinaryType)
          .add("label", DataTypes.IntegerType)
          .add("big", DataTypes.LongType)
          .add("w", DataTypes.DoubleType);

  private static final ShardLayout LAYOUT =
      new ShardLayout(
          Schema.of(
              Field.of("x", DType.FLOAT32, 2, 2), Field.of("d", DType.FLOAT64, 2),
              Field.of("px", DType.UINT8, 3), Field.scalar("label", DType.UINT8),
              Field.scalar("big", DType.FLOAT32), Field.scalar("w", DType.FLOAT32)));

  private static final RowCopier COPIER = InputColumns.bind(LAYOUT, INPUT);

  private static InternalRow row(
      boolean unsafe, Object x, Object px, int label, long big, double w) {
    GenericInternalRow row =
        new GenericInternalRow(
            new Object[] {x, new GenericArrayData(new Object[] {0.5, 1.5}), px, label, big, w});
    return unsafe ? UnsafeProjection.create(INPUT).apply(row).copy() : row;
  }

  private static InternalRow good(boolean unsafe) {
    return row(
        unsafe,
        new GenericArrayData(new Object[] {1f, 2f, 3f, 4f}),
        new byte[] {7, (byte) 200, 9},
        255,
        1L << 24,
        0.25);
  }

  @ParameterizedTest(name = "unsafe={0}")
  @ValueSource(booleans = {true, false})
  void shouldCopyEveryColumnRawInNativeOrder(boolean unsafe) {
    ShardBlock block = ShardBlock.allocate(LAYOUT, 0, 2);
    COPIER.copy(good(unsafe), block, 0, 0);
    COPIER.copy(good(unsafe), block, 0, 1);
    assertThat(block.rows()).isEqualTo(2);
    ByteBuffer x = ByteBuffer.wrap(block.column(0)).order(ByteOrder.nativeOrder());
    assertThat(x.getFloat(16 + 12)).isEqualTo(4f);
    ByteBuffer d = ByteBuffer.wrap(block.column(1)).order(ByteOrder.nativeOrder());
    assertThat(d.getDouble(8)).isEqualTo(1.5);
    assertThat(block.column(2)).containsExactly(7, -56, 9, 7, -56, 9);
    assertThat(block.column(3)).containsExactly(-1, -1);
    ByteBuffer big = ByteBuffer.wrap(block.column(4)).order(ByteOrder.nativeOrder());
    assertThat(big.getFloat(0)).isEqualTo(16777216f);
    ByteBuffer w = ByteBuffer.wrap(block.column(5)).order(ByteOrder.nativeOrder());
    assertThat(w.getFloat(4)).isEqualTo(0.25f);
  }

  private static void assertRefused(InternalRow row, String message) {
    assertThatThrownBy(() -> COPIER.copy(row, ShardBlock.allocate(LAYOUT, 0, 1), 3, 17))
        .isInstanceOf(BadRowException.class)
        .hasMessage(message);
  }

  @ParameterizedTest(name = "unsafe={0}")
  @ValueSource(booleans = {true, false})
  void shouldNameColumnRowAndShapeOfAWrongLength(boolean unsafe) {
    assertRefused(
        row(unsafe, new GenericArrayData(new Object[] {1f, 2f, 3f}), new byte[3], 1, 1, 1),
        "column 'x' row 17 of partition 3: 3 values (expected: 4 = [2,2])");
    assertRefused(
        row(unsafe, new GenericArrayData(new Object[] {1f, 2f, 3f, 4f}), new byte[4], 1, 1, 1),
        "column 'px' row 17 of partition 3: 4 bytes (expected: 3 = [3]; for bytes of varying "
            + "length, such as encoded images, write the column to Parquet and read it with "
            + "format(\"stoker\") and option transforms)");
  }

  @ParameterizedTest(name = "unsafe={0}")
  @ValueSource(booleans = {true, false})
  void shouldRefuseNullsNamingTheElement(boolean unsafe) {
    assertRefused(
        row(unsafe, null, new byte[3], 1, 1, 1),
        "column 'x' row 17 of partition 3: "
            + "null (expected: float32[2,2]; drop or fill the nulls first, e.g. df.na().drop())");
    assertRefused(
        row(unsafe, new GenericArrayData(new Object[] {1f, 2f, null, 4f}), new byte[3], 1, 1, 1),
        "column 'x' row 17 of partition 3: null at element 2 (expected: "
            + "float32[2,2] without nulls; fill them first, e.g. with transform(col, x -> "
            + "coalesce(x, 0)))");
  }

  @ParameterizedTest(name = "unsafe={0}")
  @ValueSource(booleans = {true, false})
  void shouldRefuseScalarsTheirDtypeCannotHoldExactly(boolean unsafe) {
    GenericArrayData x = new GenericArrayData(new Object[] {1f, 2f, 3f, 4f});
    assertRefused(
        row(unsafe, x, new byte[3], 256, 1, 1),
        "column 'label' row 17 of partition 3: 256 (expected: uint8, 0..255)");
    assertRefused(
        row(unsafe, x, new byte[3], 1, (1L << 24) + 1, 1),
        "column 'big' row 17 of partition 3: 16777217 (expected: a bigint that float32 holds "
            + "exactly; if rounding is fine, cast it in Spark first, e.g. "
            + "col(\"big\").cast(\"float\"))");
    assertRefused(
        row(unsafe, x, new byte[3], 1, 1, 0.1),
        "column 'w' row 17 of partition 3: 0.1 (expected: a double that float32 holds exactly; "
            + "if rounding is fine, cast it in Spark first, e.g. col(\"w\").cast(\"float\"))");
  }

  @Test
  void shouldRefuseColumnsThatAreMissingOrOfAnotherTypeBeforeAnyRow() {
    StructType input =
        new StructType()
            .add("x", DataTypes.createArrayType(DataTypes.DoubleType))
            .add("s", DataTypes.StringType)
            .add("f", DataTypes.FloatType)
            .add("b", DataTypes.BinaryType);
    assertThatThrownBy(() -> InputColumns.check(Field.of("y", DType.FLOAT32, 4), input))
        .hasMessage("column 'y': not in the DataFrame (expected one of: x, s, f, b)");
    assertThatThrownBy(() -> InputColumns.check(Field.of("x", DType.FLOAT32, 4), input))
        .hasMessage(
            "column 'x': array<double> for float32[4] (expected: array<float>; cast it "
                + "in Spark, e.g. col(\"x\").cast(\"array<float>\"))");
    assertThatThrownBy(() -> InputColumns.check(Field.of("s", DType.UINT8, 4), input))
        .hasMessage("column 's': string for uint8[4] (expected: binary)");
    assertThatThrownBy(() -> InputColumns.check(Field.of("b", DType.FLOAT32, 4), input))
        .hasMessage("column 'b': binary for float32[4] (expected: array<float>)");
    assertThatThrownBy(() -> InputColumns.check(Field.scalar("f", DType.INT64), input))
        .hasMessage(
            "column 'f': float for int64 (expected: an integer column (tinyint, "
                + "smallint, int or bigint); cast it in Spark, e.g. col(\"f\").cast(\"bigint\"))");
    assertThatThrownBy(() -> InputColumns.check(Field.scalar("s", DType.FLOAT32), input))
        .hasMessage(
            "column 's': string for float32 (expected: a numeric column (tinyint, "
                + "smallint, int, bigint, float or double); cast it in Spark, e.g. "
                + "col(\"s\").cast(\"float\"))");
  }

  @Test
  void shouldFindAColumnIgnoringCaseWhenOnlyOneMatches() {
    StructType input = new StructType().add("Label", DataTypes.IntegerType);
    InputColumns.check(Field.scalar("label", DType.INT32), input);
    StructType twice = input.add("LABEL", DataTypes.IntegerType);
    assertThatThrownBy(() -> InputColumns.check(Field.scalar("label", DType.INT32), twice))
        .hasMessage("column 'label': not in the DataFrame (expected one of: Label, LABEL)");
  }
}
