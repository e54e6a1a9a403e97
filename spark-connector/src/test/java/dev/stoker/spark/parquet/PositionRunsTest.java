package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/** What a task sends the driver of a table's kept positions, and what the driver makes of it. */
class PositionRunsTest {

  @Test
  void shouldSendRunsCompactlyAndGetThemBackWhateverTheTaskOrder() throws Exception {
    List<Row> rows = new ArrayList<>();
    long far = 5_000_000_000L; // past what an int holds
    for (long p : new long[] {10, 11, 12, 20, far, far + 1}) {
      rows.add(RowFactory.create("a", p));
    }
    for (long p : new long[] {3, 4}) {
      rows.add(RowFactory.create("b", p));
    }
    for (long p : new long[] {0, 1, 2, 13, 14}) { // a's first split, read after its second
      rows.add(RowFactory.create("a", p));
    }
    Map<String, List<byte[]>> pieces = new TreeMap<>();
    Iterator<Tuple2<String, byte[]>> sent = new TableSnapshot.PositionRuns().call(rows.iterator());
    long bytes = 0;
    while (sent.hasNext()) {
      Tuple2<String, byte[]> piece = sent.next();
      pieces.computeIfAbsent(piece._1(), f -> new ArrayList<>()).add(piece._2());
      bytes += piece._2().length;
    }

    assertThat(pieces.get("a")).hasSize(2);
    assertThat(TableSnapshot.PositionRuns.decode(pieces.get("a")))
        .hasToString("[0, 3) [10, 15) [20, 21) [" + far + ", " + (far + 2) + ")");
    assertThat(TableSnapshot.PositionRuns.decode(pieces.get("b"))).hasToString("[3, 5)");
    assertThat(bytes).as("a few bytes a run").isLessThan(30);
  }
}
