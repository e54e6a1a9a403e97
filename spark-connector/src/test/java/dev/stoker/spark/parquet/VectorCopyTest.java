package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import dev.stoker.spark.parquet.SourceColumn.Kind;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Rows of Spark's off-heap vectors copied in blocks, every row checked first. */
class VectorCopyTest {
  private static final ColumnSpec IMAGE =
      new ColumnSpec("image", Kind.LIST, DType.FLOAT32, new int[] {2}, "the footers");
  private DirectAllocator allocator;
  private HostMemory memory;
  private OffHeapColumnVector lists;

  @BeforeEach
  void allocate() {
    allocator = new DirectAllocator("test", 1 << 20);
    memory = allocator.allocate(1024);
    lists = new OffHeapColumnVector(4, DataTypes.createArrayType(DataTypes.FloatType));
    lists.getChild(0).reserve(16);
  }

  @AfterEach
  void free() {
    lists.close();
    memory.close();
    allocator.close();
  }

  /** Row {@code row} of {@code lists}: {@code values} after the rows before it. */
  private void putRow(int row, int offset, float... values) {
    lists.putArray(row, offset, values.length);
    lists.getChild(0).putFloats(offset, values.length, values, 0);
  }

  @Test
  void shouldCopyListRowsInOneBlock() {
    putRow(0, 0, 1, 2);
    putRow(1, 2, 3, 4);
    putRow(2, 4, 5, 6);

    VectorCopy.copy(lists, IMAGE, 1, 2, memory.address() + 8, "f", 10);

    assertThat(memory.floats().get(2)).isEqualTo(3f);
    assertThat(memory.floats().get(5)).isEqualTo(6f);
  }

  @Test
  void shouldCopyNumbersInOneBlock() {
    OffHeapColumnVector ints = new OffHeapColumnVector(4, DataTypes.IntegerType);
    try {
      ints.putInts(0, 3, new int[] {7, 8, 9}, 0);

      VectorCopy.copy(
          ints,
          new ColumnSpec("label", Kind.SCALAR, DType.INT32, new int[0], ""),
          1,
          2,
          memory.address(),
          "f",
          0);

      assertThat(memory.ints().get(0)).isEqualTo(8);
      assertThat(memory.ints().get(1)).isEqualTo(9);
    } finally {
      ints.close();
    }
  }

  @Test
  void shouldRefuseANullRowNamingTheFileRow() {
    putRow(0, 0, 1, 2);
    lists.putNull(1);

    assertThatThrownBy(() -> VectorCopy.copy(lists, IMAGE, 0, 2, memory.address(), "f.parquet", 40))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "column 'image' is null in "
                + "row 41 of file 'f.parquet' (expected: no nulls in a column format(\"stoker\") loads; "
                + "drop or fill them before writing, e.g. df.na().drop() or df.na().fill(...))");
  }

  @Test
  void shouldRefuseANullValueInAList() {
    putRow(0, 0, 1, 2);
    putRow(1, 2, 3, 4);
    lists.getChild(0).putNull(3);

    assertThatThrownBy(() -> VectorCopy.copy(lists, IMAGE, 0, 2, memory.address(), "f", 0))
        .hasMessageStartingWith("column 'image' holds a null value in row 1 of file 'f'");
  }

  @Test
  void shouldRefuseARowOfAnotherLength() {
    putRow(0, 0, 1, 2);
    putRow(1, 2, 3, 4, 5);

    assertThatThrownBy(() -> VectorCopy.copy(lists, IMAGE, 0, 2, memory.address(), "f", 7))
        .hasMessage(
            "column 'image' has 3 values in row 8 of file 'f' (expected: 2 = [2], as the "
                + "footers say; write every row with 2, or filter out the others before loading)");
  }
}
