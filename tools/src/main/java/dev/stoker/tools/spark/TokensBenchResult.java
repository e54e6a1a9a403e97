package dev.stoker.tools.spark;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The figures of the tokens benchmark: Stoker's median tokens/s and time to the first batch, the
 * peer's per worker count and at its best worker count, their ratio, and each side's share of the
 * documents' tokens left out of its rows (the tail past the last full batch; the peer drops one per
 * DataLoader worker).
 */
public final class TokensBenchResult {
  private final TokensBench.Config config;
  private final TokenData.Written data;
  private final double writeSeconds;
  private final List<TokensBench.Epoch> stoker;
  private final Map<Integer, List<TokensPeer.Epoch>> peer;

  TokensBenchResult(
      TokensBench.Config config,
      TokenData.Written data,
      double writeSeconds,
      List<TokensBench.Epoch> stoker,
      Map<Integer, List<TokensPeer.Epoch>> peer) {
    this.config = config;
    this.data = data;
    this.writeSeconds = writeSeconds;
    this.stoker = stoker;
    this.peer = peer;
  }

  /** The documents' tokens. */
  public long tokens() {
    return data.tokens();
  }

  /** Tokens in Stoker's rows per epoch. */
  public long stokerTokensPerEpoch() {
    return config.stokerRows(data.tokens()) * config.length();
  }

  /** Stoker's median tokens/s. */
  public double stokerTokensPerSecond() {
    return median(stoker, e -> e.rows() * config.length() / e.seconds());
  }

  /** Stoker's median seconds from {@code load} to the slowest rank's first batch. */
  public double firstBatchSeconds() {
    return median(stoker, TokensBench.Epoch::firstBatchSeconds);
  }

  /** The share of the tokens Stoker's rows leave out: the tail past the ranks' last batch. */
  public double paddingFraction() {
    return (double) (data.tokens() - stokerTokensPerEpoch()) / data.tokens();
  }

  /** The peer's worker count with the highest median tokens/s. */
  public int peerWorkers() {
    int best = -1;
    double rate = -1;
    for (int w : peer.keySet()) {
      double r = median(peer.get(w), TokensPeer.Epoch::tokensPerSecond);
      if (r > rate) {
        best = w;
        rate = r;
      }
    }
    return best;
  }

  /** The peer's median tokens/s at its best worker count. */
  public double peerTokensPerSecond() {
    return median(peer.get(peerWorkers()), TokensPeer.Epoch::tokensPerSecond);
  }

  /** The peer's median seconds to the first batch at its best worker count. */
  public double peerFirstBatchSeconds() {
    return median(peer.get(peerWorkers()), TokensPeer.Epoch::firstBatchSeconds);
  }

  /**
   * The share of the tokens the peer's batches leave out at its best worker count (its median: each
   * worker's tail depends on the row groups the epoch's order gives it).
   */
  public double peerPaddingFraction() {
    return peerDropped(peer.get(peerWorkers()));
  }

  /** Stoker's tokens/s over the peer's best. */
  public double ratio() {
    return stokerTokensPerSecond() / peerTokensPerSecond();
  }

  public void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "tokens: %,d documents, %,d tokens (%.0f a document on average), packed into rows of %d "
            + "tokens, batch %d, on %d ranks; Stoker: format(\"stoker\") with pack; PyTorch: an "
            + "IterableDataset packing with PyArrow and NumPy in a DataLoader per rank; %d cores; "
            + "medians of %d rounds%n",
        data.documents(),
        data.tokens(),
        (double) data.tokens() / data.documents(),
        config.length(),
        config.batchSize(),
        config.ranks(),
        Runtime.getRuntime().availableProcessors(),
        config.repeats());
    out.printf(
        Locale.ROOT,
        "%-8s %8s %14s %14s %10s%n",
        "side",
        "workers",
        "tokens/s",
        "first s",
        "dropped");
    out.printf(
        Locale.ROOT,
        "%-8s %8s %14.0f %14.3f %9.3f%%%n",
        "stoker",
        config.stokerWorkers() == null ? "default" : config.stokerWorkers().toString(),
        stokerTokensPerSecond(),
        firstBatchSeconds(),
        paddingFraction() * 100);
    for (Map.Entry<Integer, List<TokensPeer.Epoch>> e : peer.entrySet()) {
      out.printf(
          Locale.ROOT,
          "%-8s %8d %14.0f %14.3f %9.3f%%%n",
          "torch",
          e.getKey(),
          median(e.getValue(), TokensPeer.Epoch::tokensPerSecond),
          median(e.getValue(), TokensPeer.Epoch::firstBatchSeconds),
          peerDropped(e.getValue()) * 100);
    }
    out.printf(
        Locale.ROOT,
        "%nStoker %.0f tokens/s against PyTorch's best (%d workers) %.0f: %.2fx%n",
        stokerTokensPerSecond(),
        peerWorkers(),
        peerTokensPerSecond(),
        ratio());
    out.flush();
  }

  public String json() {
    return "{\n"
        + "  \"workload\": \""
        + TokensBench.WORKLOAD
        + "\",\n"
        + "  \"documents\": "
        + data.documents()
        + ",\n"
        + "  \"tokens\": "
        + data.tokens()
        + ",\n"
        + "  \"stoker_tokens_per_epoch\": "
        + stokerTokensPerEpoch()
        + ",\n"
        + "  \"length\": "
        + config.length()
        + ",\n"
        + "  \"batch_size\": "
        + config.batchSize()
        + ",\n"
        + "  \"ranks\": "
        + config.ranks()
        + ",\n"
        + "  \"repeats\": "
        + config.repeats()
        + ",\n"
        + "  \"cores\": "
        + Runtime.getRuntime().availableProcessors()
        + ",\n"
        + "  \"stoker_workers\": "
        + (config.stokerWorkers() == null ? "null" : config.stokerWorkers())
        + ",\n"
        + "  \"stoker_tokens_per_s\": "
        + number(stokerTokensPerSecond())
        + ",\n"
        + "  \"peer_tokens_per_s\": "
        + number(peerTokensPerSecond())
        + ",\n"
        + "  \"peer_workers\": "
        + peerWorkers()
        + ",\n"
        + "  \"ratio\": "
        + fixed(ratio())
        + ",\n"
        + "  \"padding_fraction\": "
        + String.format(Locale.ROOT, "%.6f", paddingFraction())
        + ",\n"
        + "  \"peer_padding_fraction\": "
        + String.format(Locale.ROOT, "%.6f", peerPaddingFraction())
        + ",\n"
        + "  \"first_batch_s\": "
        + fixed(firstBatchSeconds())
        + ",\n"
        + "  \"peer_first_batch_s\": "
        + fixed(peerFirstBatchSeconds())
        + ",\n"
        + "  \"per_worker\": {\"peer\": "
        + perWorker(TokensPeer.Epoch::tokensPerSecond)
        + "},\n"
        + "  \"runs\": {\n"
        + "    \"stoker\": "
        + runs(stoker, e -> e.rows() * config.length() / e.seconds())
        + ",\n"
        + "    \"peer\": "
        + peer.entrySet().stream()
            .map(
                e ->
                    "\""
                        + e.getKey()
                        + "\": "
                        + runs(e.getValue(), TokensPeer.Epoch::tokensPerSecond))
            .collect(Collectors.joining(", ", "{", "}"))
        + "\n  },\n"
        + "  \"first_batch_runs\": {\n"
        + "    \"stoker\": "
        + runs(stoker, TokensBench.Epoch::firstBatchSeconds)
        + ",\n"
        + "    \"peer\": "
        + perWorker(TokensPeer.Epoch::firstBatchSeconds)
        + "\n  },\n"
        + "  \"data_reused\": "
        + data.reused()
        + ",\n"
        + "  \"write_seconds\": "
        + fixed(writeSeconds)
        + "\n"
        + "}\n";
  }

  /** The median share of the tokens left out of the peer's batches in {@code runs}. */
  private double peerDropped(List<TokensPeer.Epoch> runs) {
    return (data.tokens() - median(runs, TokensPeer.Epoch::tokens)) / data.tokens();
  }

  private String perWorker(ToDoubleFunction<TokensPeer.Epoch> figure) {
    return peer.entrySet().stream()
        .map(e -> "\"" + e.getKey() + "\": " + number(median(e.getValue(), figure)))
        .collect(Collectors.joining(", ", "{", "}"));
  }

  private static <T> double median(List<T> runs, ToDoubleFunction<T> figure) {
    return runs.isEmpty()
        ? Double.NaN
        : SourceBench.median(runs.stream().map(figure::applyAsDouble).toList());
  }

  private static <T> String runs(List<T> runs, ToDoubleFunction<T> figure) {
    return runs.stream()
        .map(r -> number(figure.applyAsDouble(r)))
        .collect(Collectors.joining(", ", "[", "]"));
  }

  /** Rates with one decimal, seconds with three: small values must not read as 0. */
  private static String number(double value) {
    if (Double.isNaN(value)) {
      return "null";
    }
    return String.format(Locale.ROOT, Math.abs(value) >= 100 ? "%.1f" : "%.4f", value);
  }

  private static String fixed(double value) {
    return Double.isNaN(value) ? "null" : String.format(Locale.ROOT, "%.3f", value);
  }
}
