package dev.stoker.spark.source;

import dev.stoker.loader.tokens.TokenCounts;
import dev.stoker.spark.parquet.SourceCounters;
import java.util.Locale;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The scan's metrics in Spark's UI and plan: per task, rows read, Parquet bytes read, read time and
 * batches; on the driver, the rows planning dropped. Spark makes the metric classes by name, so
 * each is public with a public constructor.
 */
public final class SourceMetrics {
  /** Rows read from Parquet into the shuffle buffers. */
  public static final String ROWS_READ = "rowsRead";

  /** Rows no rank reads, known when planning ({@code dropLast}). */
  public static final String ROWS_DROPPED = "rowsDropped";

  /** Compressed bytes of the column chunks read. */
  public static final String BYTES_READ = "bytesRead";

  /** Time spent decoding Parquet and filling the shuffle buffers, in milliseconds. */
  public static final String READ_TIME = "readTimeMs";

  /** Batches handed to Spark. */
  public static final String BATCHES = "batches";

  /** Time the decoding waited for bytes from remote storage, in milliseconds. */
  public static final String STORAGE_WAIT = "storageWaitMs";

  /** Tokens of documents in the rows made (pack or pad), padding not counted. */
  public static final String TOKENS = "tokens";

  /** Padding tokens in the rows made (pad). */
  public static final String PADDING_TOKENS = "paddingTokens";

  /** Tokens no rank packs, known when planning (pack). */
  public static final String TOKENS_DROPPED = "tokensDropped";

  private SourceMetrics() {}

  static CustomMetric[] supported() {
    return new CustomMetric[] {
      new RowsRead(),
      new RowsDropped(),
      new BytesRead(),
      new ReadTime(),
      new StorageWait(),
      new Batches(),
      new Tokens(),
      new PaddingTokens(),
      new TokensDropped()
    };
  }

  /** The task's figures; {@code tokens} those of its token rows, or null. */
  static CustomTaskMetric[] taskValues(SourceCounters counters, TokenCounts tokens) {
    return new CustomTaskMetric[] {
      value(ROWS_READ, counters.rowsRead.sum()),
      value(BYTES_READ, counters.bytesRead.sum()),
      value(READ_TIME, counters.readNanos.sum() / 1_000_000),
      value(STORAGE_WAIT, counters.storageWaitNanos.sum() / 1_000_000),
      value(BATCHES, counters.batches.sum()),
      value(TOKENS, tokens == null ? 0 : tokens.tokens()),
      value(PADDING_TOKENS, tokens == null ? 0 : tokens.paddingTokens())
    };
  }

  static CustomTaskMetric value(String name, long value) {
    return new Value(name, value);
  }

  private record Value(String name, long value) implements CustomTaskMetric {}

  /** {@link #ROWS_READ}. */
  public static final class RowsRead extends CustomSumMetric {
    @Override
    public String name() {
      return ROWS_READ;
    }

    @Override
    public String description() {
      return "rows read";
    }
  }

  /** {@link #STORAGE_WAIT}. */
  public static final class StorageWait extends CustomSumMetric {
    @Override
    public String name() {
      return STORAGE_WAIT;
    }

    @Override
    public String description() {
      return "storage wait (ms)";
    }
  }

  /** {@link #ROWS_DROPPED}. */
  public static final class RowsDropped extends CustomSumMetric {
    @Override
    public String name() {
      return ROWS_DROPPED;
    }

    @Override
    public String description() {
      return "rows dropped (dropLast)";
    }
  }

  /** {@link #BYTES_READ}. */
  public static final class BytesRead extends CustomSumMetric {
    @Override
    public String name() {
      return BYTES_READ;
    }

    @Override
    public String description() {
      return "Parquet bytes read";
    }
  }

  /** {@link #READ_TIME}: the sum over tasks, and the slowest task. */
  public static final class ReadTime implements CustomMetric {
    @Override
    public String name() {
      return READ_TIME;
    }

    @Override
    public String description() {
      return "read time";
    }

    @Override
    public String aggregateTaskMetrics(long[] taskMetrics) {
      long sum = 0;
      long max = 0;
      for (long ms : taskMetrics) {
        sum += ms;
        max = Math.max(max, ms);
      }
      return String.format(Locale.ROOT, "total %,d ms (slowest task %,d ms)", sum, max);
    }
  }

  /** {@link #BATCHES}. */
  public static final class Batches extends CustomSumMetric {
    @Override
    public String name() {
      return BATCHES;
    }

    @Override
    public String description() {
      return "batches";
    }
  }

  /** {@link #TOKENS}. */
  public static final class Tokens extends CustomSumMetric {
    @Override
    public String name() {
      return TOKENS;
    }

    @Override
    public String description() {
      return "tokens in rows (pack, pad)";
    }
  }

  /** {@link #PADDING_TOKENS}. */
  public static final class PaddingTokens extends CustomSumMetric {
    @Override
    public String name() {
      return PADDING_TOKENS;
    }

    @Override
    public String description() {
      return "padding tokens (pad)";
    }
  }

  /** {@link #TOKENS_DROPPED}. */
  public static final class TokensDropped extends CustomSumMetric {
    @Override
    public String name() {
      return TOKENS_DROPPED;
    }

    @Override
    public String description() {
      return "tokens dropped (pack: the tail past the last full step)";
    }
  }
}
