package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.spark.parquet.ParquetFile.RowGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The layout a read's own figures give: how many row groups at a time, at how many depths. */
class GroupStripesTest {

  private static List<RankPlanner.Group> groups(String folder, int count, long rows) {
    List<RankPlanner.Group> groups = new ArrayList<>();
    for (int g = 0; g < count; g++) {
      groups.add(
          new RankPlanner.Group(
              folder + "/part-" + g + ".parquet",
              new RowGroup(0, 4, rows * 100, rows, 0, Map.of()),
              rows * 100,
              true));
    }
    return groups;
  }

  @Test
  void shouldReadEachOfFewLocalRowGroupsAtSeveralDepths() {
    assertThat(GroupStripes.of(groups("/data", 4, 25_000), true, 8192))
        .as("four row groups at four depths: sixteen places in blocks of 512")
        .isEqualTo(new GroupStripes(4, 4, 512));
    assertThat(GroupStripes.of(groups("file:/data", 8, 25_000), true, 8192))
        .isEqualTo(new GroupStripes(8, 2, 512));
    assertThat(GroupStripes.of(groups("/data", 1, 1_000_000), true, 8192))
        .as("one row group alone is read at sixteen depths")
        .isEqualTo(new GroupStripes(1, 16, 512));
    assertThat(GroupStripes.of(groups("/data", 100, 25_000), true, 8192))
        .isEqualTo(new GroupStripes(8, 2, 512));
    assertThat(GroupStripes.of(groups("/data", 4, 25_000), true, 65_536))
        .as("a larger window takes larger blocks; a depth holds two at least")
        .isEqualTo(new GroupStripes(4, 3, 5461));
  }

  @Test
  void shouldCutNoDepthShorterThanTwoBlocks() {
    assertThat(GroupStripes.of(groups("/data", 4, 3000), true, 8192))
        .as("2 depths of 1,500 rows; 4 would hold 750, under two blocks of 512")
        .isEqualTo(new GroupStripes(4, 2, 1024));
    assertThat(GroupStripes.of(groups("/data", 2, 1000), true, 8192))
        .isEqualTo(new GroupStripes(2, 1, 4096));
    List<RankPlanner.Group> shortLast = new ArrayList<>(groups("/data", 3, 25_000));
    shortLast.addAll(groups("/data/last", 1, 100));
    assertThat(GroupStripes.of(shortLast, true, 8192))
        .as("a file's short last row group leaves the others their depths")
        .isEqualTo(new GroupStripes(4, 4, 512));
  }

  @Test
  void shouldReadRemoteRowGroupsFromTheirStart() {
    assertThat(GroupStripes.of(groups("s3a://bucket/data", 4, 25_000), true, 8192))
        .as("a remote reader fetches from a row group's start: one place each")
        .isEqualTo(new GroupStripes(4, 1, 2048));
  }

  @Test
  void shouldReadNoMoreRemoteRowGroupsAtATimeThanTheReadAheadHolds() {
    // 8 row groups of 16 MiB (5,300 rows of 3,140 bytes): 2 fit the default read-ahead of 32 MiB
    List<RankPlanner.Group> large = new ArrayList<>();
    for (int g = 0; g < 8; g++) {
      large.add(remoteGroup(g, 16L << 20));
    }
    assertThat(GroupStripes.of(large, true, 8192))
        .as("the next row groups are fetched while the current ones decode")
        .isEqualTo(new GroupStripes(2, 1, 4096));
    List<RankPlanner.Group> huge = new ArrayList<>(large);
    huge.set(3, remoteGroup(3, 64L << 20));
    assertThat(GroupStripes.of(huge, true, 8192))
        .as("one row group larger than the read-ahead: one at a time")
        .isEqualTo(GroupStripes.NONE);
  }

  private static RankPlanner.Group remoteGroup(int g, long bytes) {
    return new RankPlanner.Group(
        "s3a://bucket/data/part-" + g + ".parquet",
        new RowGroup(0, 4, bytes, 5_300, 0, Map.of()),
        bytes,
        true);
  }

  @Test
  void shouldReadRowGroupsOfSparksReaderFromTheirStart() {
    List<RankPlanner.Group> groups = groups("/data", 4, 25_000);
    RankPlanner.Group first = groups.get(0);
    groups.set(0, new RankPlanner.Group(first.path(), first.rowGroup(), first.bytes(), false));
    assertThat(GroupStripes.of(groups, true, 8192))
        .as("Spark's reader decodes the rows it passes: one place a row group")
        .isEqualTo(new GroupStripes(4, 1, 2048));
  }

  @Test
  void shouldReadInOrderWithoutAShuffleOrWithATinyWindow() {
    assertThat(GroupStripes.of(groups("/data", 4, 25_000), false, 8192))
        .isEqualTo(GroupStripes.NONE);
    assertThat(GroupStripes.of(groups("/data", 4, 25_000), true, 1000))
        .isEqualTo(GroupStripes.NONE);
    assertThat(GroupStripes.of(groups("/data", 1, 600), true, 8192))
        .as("one row group too small for two depths")
        .isEqualTo(GroupStripes.NONE);
  }
}
