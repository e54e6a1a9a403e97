package dev.stoker.tools.spark;

import dev.stoker.spark.collective.AllReduceAlgorithm;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The figures of an {@code allreduce} run, as NCCL's tests report them: per world size, length and
 * algorithm, the median seconds of one call, the algorithm bandwidth (the array's bytes over that
 * time) and the bus bandwidth (algbw x 2 (ranks - 1) / ranks: what each rank's link carries each
 * way in a bandwidth-optimal all-reduce, to set against the link's limit).
 */
public record AllReduceResult(AllReduceBench.Config config, List<Row> rows) {
  public AllReduceResult {
    rows = List.copyOf(rows);
  }

  /** One (ranks, floats, algorithm) figure; {@code linkLimit} in GB/s, or null. */
  public record Row(
      int ranks,
      int floats,
      AllReduceAlgorithm algorithm,
      String links,
      double seconds,
      Double linkLimit) {
    public double algbwGbPerSecond() {
      return (double) floats * Float.BYTES / seconds / 1e9;
    }

    public double busbwGbPerSecond() {
      return algbwGbPerSecond() * 2 * (ranks - 1) / ranks;
    }

    String json() {
      return String.format(
          Locale.ROOT,
          "{\"workload\": \"%s\", \"ranks\": %d, \"floats\": %d, "
              + "\"algorithm\": \"%s\", \"links\": \"%s\", \"seconds\": %.6f, "
              + "\"algbw_gb_s\": %.4f, \"busbw_gb_s\": %.4f, \"link_limit_gb_s\": %s}",
          AllReduceBench.WORKLOAD,
          ranks,
          floats,
          algorithm.name().toLowerCase(Locale.ROOT),
          links,
          seconds,
          algbwGbPerSecond(),
          busbwGbPerSecond(),
          linkLimit == null ? "null" : String.format(Locale.ROOT, "%.4f", linkLimit));
    }
  }

  /** The ring's time over the star's for {@code ranks} and {@code floats}, or NaN. */
  public double ringOverStar(int ranks, int floats) {
    double star = Double.NaN;
    double ring = Double.NaN;
    for (Row row : rows) {
      if (row.ranks() == ranks && row.floats() == floats) {
        if (row.algorithm() == AllReduceAlgorithm.STAR) {
          star = row.seconds();
        } else if (row.algorithm() == AllReduceAlgorithm.RING) {
          ring = row.seconds();
        }
      }
    }
    return ring / star;
  }

  public void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%nworkload %s: allReduceSum(float[]), the median of %d calls after "
            + "%d warm-up calls each, star and ring alternating; links: %s; %d cores%n%n",
        AllReduceBench.WORKLOAD,
        config.repeats(),
        config.warmup(),
        rows.isEmpty() ? "-" : rows.get(0).links(),
        Runtime.getRuntime().availableProcessors());
    out.printf(
        Locale.ROOT,
        "%5s %12s %5s %10s %11s %11s %9s%n",
        "ranks",
        "floats",
        "algo",
        "seconds",
        "algbw GB/s",
        "busbw GB/s",
        "ring/star");
    for (Row row : rows) {
      out.printf(
          Locale.ROOT,
          "%5d %,12d %5s %10.4f %11.3f %11.3f %9s%n",
          row.ranks(),
          row.floats(),
          row.algorithm().name().toLowerCase(Locale.ROOT),
          row.seconds(),
          row.algbwGbPerSecond(),
          row.busbwGbPerSecond(),
          row.algorithm() == AllReduceAlgorithm.RING
              ? String.format(Locale.ROOT, "%.2f", ringOverStar(row.ranks(), row.floats()))
              : "");
    }
    if (!rows.isEmpty() && rows.get(0).linkLimit() != null) {
      out.printf(Locale.ROOT, "%nlink limit: %.3f GB/s per host%n", rows.get(0).linkLimit());
    }
  }

  public String json() {
    return rows.stream()
        .map(row -> "  " + row.json())
        .collect(Collectors.joining(",\n", "[\n", "\n]\n"));
  }
}
