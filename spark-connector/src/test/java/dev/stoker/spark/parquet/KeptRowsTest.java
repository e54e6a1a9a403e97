package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.BitSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The rows a table's snapshot keeps of a file, against a bit per row. */
class KeptRowsTest {

  @Test
  void shouldMergeRunsGivenInAnyOrder() {
    KeptRows kept = KeptRows.of(new long[] {10, 0, 3, 20}, new long[] {12, 3, 5, 21});

    assertThat(kept).hasToString("[0, 5) [10, 12) [20, 21)");
    assertThat(kept.count()).isEqualTo(8);
    assertThat(kept.end()).isEqualTo(21);
    assertThat(KeptRows.all(4)).hasToString("[0, 4)");
    assertThat(KeptRows.all(0).count()).isZero();
  }

  @Test
  void shouldRefuseARunThatIsNotOne() {
    assertThatThrownBy(() -> KeptRows.of(new long[] {5}, new long[] {5}))
        .hasMessage(
            "kept rows: run [5, 5) (expected: 0 <= start < end, row positions in the file)");
    assertThatThrownBy(() -> KeptRows.of(new long[] {-1}, new long[] {2}))
        .hasMessageContaining("run [-1, 2)");
    assertThatThrownBy(() -> KeptRows.of(new long[] {1}, new long[0]))
        .hasMessageContaining("1 run starts and 0 run ends");
  }

  @Test
  void shouldAnswerAsABitPerRowWould() {
    Random random = new Random(5);
    for (int trial = 0; trial < 200; trial++) {
      int rows = 1 + random.nextInt(200);
      BitSet bits = new BitSet(rows);
      int runs = random.nextInt(8);
      long[] starts = new long[runs];
      long[] ends = new long[runs];
      for (int r = 0; r < runs; r++) {
        starts[r] = random.nextInt(rows);
        ends[r] = starts[r] + 1 + random.nextInt(Math.max(1, rows - (int) starts[r]));
        ends[r] = Math.min(ends[r], rows);
        bits.set((int) starts[r], (int) ends[r]);
      }
      KeptRows kept = KeptRows.of(starts, ends);
      int from = random.nextInt(rows);
      int to = from + random.nextInt(rows - from + 1);
      assertThat(kept.count(from, to)).isEqualTo(bits.get(from, to).cardinality());
      int limit = from + random.nextInt(rows - from + 1);
      long deleted = 0;
      while (from + deleted < limit && !bits.get((int) (from + deleted))) {
        deleted++;
      }
      long together = 0;
      while (from + together < limit && bits.get((int) (from + together))) {
        together++;
      }
      assertThat(kept.deletedFrom(from, limit)).as("deleted from %d", from).isEqualTo(deleted);
      assertThat(kept.keptFrom(from, limit)).as("kept from %d", from).isEqualTo(together);
      KeptRows slice = kept.slice(from, to);
      assertThat(slice.count()).isEqualTo(bits.get(from, to).cardinality());
      assertThat(slice.count(0, from)).isZero();
    }
  }
}
