package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.spark.parquet.ParquetFile.RowGroup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Planning from footers alone, on random files: equal ranks, exact coverage, padding, order. */
class RankPlannerTest {

  /** Files of random row groups (some empty), in file order. */
  private static List<RankPlanner.Group> randomFiles(Random random) {
    List<RankPlanner.Group> groups = new ArrayList<>();
    int files = 1 + random.nextInt(4);
    for (int f = 0; f < files; f++) {
      long firstRow = 0;
      long start = 4;
      int count = 1 + random.nextInt(6);
      for (int g = 0; g < count; g++) {
        long rows = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(50);
        groups.add(
            new RankPlanner.Group(
                "file-" + f,
                new RowGroup(g, start, rows * 10 + 1, rows, firstRow, Map.of()),
                rows * 10,
                random.nextBoolean()));
        firstRow += rows;
        start += rows * 10 + 1;
      }
    }
    return groups;
  }

  private static long rows(List<RankPlanner.Group> groups) {
    return groups.stream().mapToLong(g -> g.rowGroup().rows()).sum();
  }

  /** Every row a rank reads, as "file:row", in reading order. */
  private static List<String> rowsOf(List<ReadRun> runs) {
    List<String> rows = new ArrayList<>();
    for (ReadRun run : runs) {
      for (long r = 0; r < run.rows(); r++) {
        rows.add(run.path() + ":" + (run.firstRow() + run.skipRows() + r));
      }
    }
    return rows;
  }

  @Test
  void shouldGiveEveryRankEqualRowsOfTheKeptRowsOnly() {
    Random random = new Random(23);
    for (int trial = 0; trial < 300; trial++) {
      List<RankPlanner.Group> plain = randomFiles(random);
      Map<String, KeptRows> keptByFile = new HashMap<>();
      Map<String, Long> fileRows = new HashMap<>();
      for (RankPlanner.Group group : plain) {
        fileRows.merge(group.path(), group.rowGroup().rows(), Long::sum);
      }
      fileRows.forEach(
          (path, rows) -> {
            List<long[]> runs = new ArrayList<>();
            for (long r = 0; r < rows; r++) {
              if (random.nextInt(4) != 0) {
                runs.add(new long[] {r, r + 1});
              }
            }
            keptByFile.put(
                path,
                KeptRows.of(
                    runs.stream().mapToLong(x -> x[0]).toArray(),
                    runs.stream().mapToLong(x -> x[1]).toArray()));
          });
      List<RankPlanner.Group> groups = new ArrayList<>();
      long kept = 0;
      for (RankPlanner.Group g : plain) {
        RankPlanner.Group group =
            new RankPlanner.Group(
                g.path(), g.rowGroup(), g.bytes(), g.decodable(), -1, keptByFile.get(g.path()));
        groups.add(group);
        kept += group.rows();
      }
      int world = 1 + random.nextInt(3);
      int batch = 1 + random.nextInt(5);
      if ((long) world * batch > kept) {
        continue;
      }
      ReadPlan plan =
          RankPlanner.plan(groups, world, batch, true, random.nextBoolean(), trial, 0, "test");
      Set<String> seen = new HashSet<>();
      for (List<ReadRun> rank : plan.ranks()) {
        List<String> rows = keptRowsOf(rank);
        assertThat(rows).hasSize((int) plan.rowsPerRank());
        for (String row : rows) {
          assertThat(seen.add(row)).as("%s read once", row).isTrue();
        }
      }
      assertThat(plan.rows()).isEqualTo(kept);
      assertThat(plan.droppedRows()).isEqualTo(kept - plan.rowsPerRank() * world);
    }
  }

  /** The physical rows a rank reads where runs count kept rows: deleted ones passed over. */
  private static List<String> keptRowsOf(List<ReadRun> runs) {
    List<String> rows = new ArrayList<>();
    for (ReadRun run : runs) {
      long skip = run.skipRows();
      long left = run.rows();
      for (long r = run.firstRow(); left > 0; r++) {
        assertThat(r).as("a row of the run's groups").isLessThan(run.firstRow() + run.groupRows());
        if (run.kept().count(r, r + 1) == 0) {
          continue;
        }
        if (skip > 0) {
          skip--;
          continue;
        }
        rows.add(run.path() + ":" + r);
        left--;
      }
    }
    return rows;
  }

  @Test
  void shouldGiveEveryRankEqualRowsCoveringTheInputExactly() {
    Random random = new Random(11);
    int planned = 0;
    for (int round = 0; round < 3000; round++) {
      List<RankPlanner.Group> groups = randomFiles(random);
      long total = rows(groups);
      int worldSize = 1 + random.nextInt(5);
      int batchSize = 1 + random.nextInt(12);
      boolean dropLast = random.nextBoolean();
      boolean shuffle = random.nextBoolean();
      if ((long) worldSize * batchSize > total) {
        continue;
      }
      planned++;
      ReadPlan plan =
          RankPlanner.plan(
              groups,
              worldSize,
              batchSize,
              dropLast,
              shuffle,
              random.nextLong(),
              random.nextInt(10),
              "'x'");

      assertThat(plan.rows()).isEqualTo(total);
      Map<String, Integer> seen = new HashMap<>();
      for (List<ReadRun> runs : plan.ranks()) {
        List<String> rows = rowsOf(runs);
        assertThat(rows).hasSize((int) plan.rowsPerRank());
        rows.forEach(row -> seen.merge(row, 1, Integer::sum));
        for (ReadRun run : runs) {
          assertThat(run.skipRows() + run.rows()).isLessThanOrEqualTo(run.groupRows());
          assertThat(run.skipRows()).isLessThan(run.groupRows());
        }
      }
      if (dropLast) {
        assertThat(plan.rowsPerRank() % batchSize).isZero();
        assertThat(plan.batchesPerRank()).isEqualTo(plan.rowsPerRank() / batchSize);
        assertThat(plan.droppedRows())
            .isEqualTo(total - worldSize * plan.rowsPerRank())
            .isLessThan((long) worldSize * batchSize);
        assertThat(seen.values()).containsOnly(1);
        assertThat(seen).hasSize((int) (total - plan.droppedRows()));
      } else {
        assertThat(plan.rowsPerRank()).isEqualTo((total + worldSize - 1) / worldSize);
        assertThat(plan.batchesPerRank())
            .isEqualTo((int) ((plan.rowsPerRank() + batchSize - 1) / batchSize));
        assertThat(seen).hasSize((int) total);
        assertThat(seen.values().stream().mapToLong(n -> n - 1).sum())
            .isEqualTo(plan.paddedRows())
            .isLessThan(worldSize);
      }
    }
    assertThat(planned).isGreaterThan(1000);
  }

  /**
   * Dealt in stripes, any range of the order's positions is read once: the ranks' ranges (and any
   * cut of them) cover every row exactly once, and a stripe's first round holds a block of each of
   * its places (each depth of each of its row groups).
   */
  @Test
  void shouldDealStripesOfRowGroupsCoveringEveryRowOnce() {
    Random random = new Random(31);
    for (int round = 0; round < 2000; round++) {
      List<RankPlanner.Group> groups =
          RankPlanner.ordered(
              RankPlanner.nonEmpty(randomFiles(random)), true, random.nextLong(), 0);
      if (groups.isEmpty()) {
        continue;
      }
      long total = rows(groups);
      long[] starts = RankPlanner.starts(groups);
      GroupStripes stripes =
          new GroupStripes(1 + random.nextInt(4), 1 + random.nextInt(3), 1 + random.nextInt(8));
      if (!stripes.deals()) {
        continue;
      }
      long cut = random.nextLong(total + 1);
      List<String> rows = new ArrayList<>();
      rows.addAll(rowsOf(RankPlanner.runs(groups, starts, total, 0, cut, stripes)));
      rows.addAll(rowsOf(RankPlanner.runs(groups, starts, total, cut, total, stripes)));
      assertThat(rows).hasSize((int) total).doesNotHaveDuplicates();
      assertThat(rows)
          .containsExactlyElementsOf(
              rowsOf(RankPlanner.runs(groups, starts, total, 0, total, stripes)));
      assertThat(RankPlanner.runs(groups, starts, total, 0, total, stripes))
          .as("dealt blocks: each a run of one row group, read on by that group's reader")
          .allMatch(run -> run.rowGroups() == 1);
      List<ReadRun> firstRound =
          RankPlanner.runs(groups, starts, total, 0, Math.min(total, stripes.blockRows()), stripes);
      if (groups.get(0).rows() >= stripes.depths()) {
        assertThat(firstRound.get(0).path() + firstRound.get(0).firstRowGroup())
            .isEqualTo(groups.get(0).path() + groups.get(0).rowGroup().ordinal());
        assertThat(firstRound.get(0).skipRows()).isZero();
      }
      long placeRows = (long) stripes.depths() * stripes.blockRows();
      if (groups.size() >= stripes.groups()
          && groups.stream().allMatch(g -> g.rows() >= placeRows)) {
        Set<String> dealt = new HashSet<>();
        Set<String> places = new HashSet<>();
        int blocks = stripes.groups() * stripes.depths();
        for (ReadRun run :
            RankPlanner.runs(
                groups, starts, total, 0, (long) blocks * stripes.blockRows(), stripes)) {
          dealt.add(run.path() + "#" + run.firstRowGroup());
          int depth = 0;
          while (depth < stripes.depths()
              && run.groupRows() * depth / stripes.depths() != run.skipRows()) {
            depth++;
          }
          assertThat(depth)
              .as("a place's first block starts where its depth does")
              .isLessThan(stripes.depths());
          places.add(run.path() + "#" + run.firstRowGroup() + "@" + depth);
        }
        assertThat(dealt).as("one block of each row group of the stripe").hasSize(stripes.groups());
        assertThat(places).as("one block of each depth of each").hasSize(blocks);
      }
    }
  }

  @Test
  void shouldReadWholeConsecutiveRowGroupsOfAFileInOneRun() {
    List<RankPlanner.Group> groups = new ArrayList<>();
    for (int g = 0; g < 4; g++) {
      groups.add(
          new RankPlanner.Group(
              "a", new RowGroup(g, 4 + g * 100L, 100, 10, g * 10L, Map.of()), 100, true));
    }

    ReadPlan plan = RankPlanner.plan(groups, 2, 5, true, false, 0, 0, "'a'");

    assertThat(plan.ranks().get(0))
        .containsExactly(new ReadRun("a", 4, 200, 0, 2, 0, 20, 0, 20, 200, true));
    assertThat(plan.ranks().get(1))
        .containsExactly(new ReadRun("a", 204, 200, 2, 2, 20, 20, 0, 20, 200, true));
  }

  @Test
  void shouldShuffleRowGroupsByEpochAndSeedOnly() {
    List<RankPlanner.Group> groups = new ArrayList<>();
    for (int g = 0; g < 40; g++) {
      groups.add(
          new RankPlanner.Group(
              "f", new RowGroup(g, g * 10L, 10, 10, g * 10L, Map.of()), 10, true));
    }

    List<String> epoch1 =
        rowsOf(RankPlanner.plan(groups, 2, 10, true, true, 5, 1, "'f'").ranks().get(0));
    List<String> again =
        rowsOf(RankPlanner.plan(groups, 2, 10, true, true, 5, 1, "'f'").ranks().get(0));
    List<String> epoch2 =
        rowsOf(RankPlanner.plan(groups, 2, 10, true, true, 5, 2, "'f'").ranks().get(0));
    List<String> seed6 =
        rowsOf(RankPlanner.plan(groups, 2, 10, true, true, 6, 1, "'f'").ranks().get(0));

    assertThat(again).isEqualTo(epoch1);
    assertThat(epoch2).isNotEqualTo(epoch1);
    assertThat(seed6).isNotEqualTo(epoch1);
    Set<String> firstHalf =
        new HashSet<>(
            rowsOf(RankPlanner.plan(groups, 2, 10, true, false, 5, 1, "'f'").ranks().get(0)));
    assertThat(new HashSet<>(epoch1)).isNotEqualTo(firstHalf);
  }

  @Test
  void shouldRefuseMoreRowsPerStepThanThereAre() {
    List<RankPlanner.Group> groups =
        List.of(new RankPlanner.Group("f", new RowGroup(0, 4, 10, 30, 0, Map.of()), 10, true));

    assertThatThrownBy(() -> RankPlanner.plan(groups, 4, 8, false, false, 0, 0, "'/data'"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "batchSize=8 x worldSize=4 = 32 "
                + "rows per step, but '/data' hold(s) 30 row(s) (expected: at most 30, so that every "
                + "rank gets a full batch; lower batchSize or worldSize)");
  }
}
