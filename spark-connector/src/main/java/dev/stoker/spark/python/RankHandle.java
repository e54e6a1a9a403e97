package dev.stoker.spark.python;

import dev.stoker.loader.BatchLayout;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The one row a rank sends to Python through Spark, as JSON: the shared-memory file, the rank, the
 * epoch's figures and every column's dtype, shape and place in a slot. Sent once; the batches
 * themselves never pass through Spark.
 */
final class RankHandle {
  private RankHandle() {}

  /**
   * @param bell the doorbell's socket, or null where the sides poll
   * @param state the read's state at its start ({@code LoaderState} as text), from which Python
   *     counts the state after any batch; null where not known
   * @param orderFollowsEpoch whether each next epoch is planned in its own order over the whole
   *     input ({@code epochOrder=global}), which the state after an epoch then says
   */
  static String json(
      Path file,
      Path bell,
      int rank,
      ReadPlan plan,
      ReadConfig config,
      BatchLayout layout,
      String state,
      boolean orderFollowsEpoch) {
    LoaderOptions options = config.loader().options();
    StringBuilder json = new StringBuilder(256);
    json.append("{\"version\":")
        .append(SlotChannel.VERSION)
        .append(",\"path\":")
        .append(quote(file.toString()))
        .append(",\"bell\":")
        .append(bell == null ? "null" : quote(bell.toString()))
        .append(",\"rank\":")
        .append(rank)
        .append(",\"worldSize\":")
        .append(plan.ranks().size())
        .append(",\"epoch\":")
        .append(config.epoch())
        .append(",\"batchSize\":")
        .append(options.batchSize())
        .append(",\"batches\":")
        .append(plan.batchesPerRank())
        .append(",\"rowsPerRank\":")
        .append(plan.rowsPerRank())
        .append(",\"droppedRows\":")
        .append(plan.droppedRows())
        .append(",\"paddedRows\":")
        .append(plan.paddedRows())
        .append(",\"dropLast\":")
        .append(options.dropLast())
        .append(",\"shuffle\":")
        .append(options.shuffle())
        .append(",\"seed\":")
        .append(options.seed())
        .append(",\"state\":")
        .append(state == null ? "null" : quote(state))
        .append(",\"orderFollowsEpoch\":")
        .append(orderFollowsEpoch)
        .append(",\"slotBytes\":")
        .append(layout.slotBytes())
        .append(",\"columns\":[");
    for (int c = 0; c < layout.schema().size(); c++) {
      Field field = layout.schema().field(c);
      json.append(c == 0 ? "" : ",")
          .append("{\"name\":")
          .append(quote(field.name()))
          .append(",\"dtype\":")
          .append(quote(field.dtype().label()))
          .append(",\"shape\":[");
      int[] shape = field.shape();
      for (int d = 0; d < shape.length; d++) {
        json.append(d == 0 ? "" : ",").append(shape[d]);
      }
      json.append("],\"offset\":")
          .append(layout.columnOffset(c))
          .append(",\"rowBytes\":")
          .append(field.bytesPerSample())
          .append('}');
    }
    return json.append("]}").toString();
  }

  /** A JSON string: quotes, backslashes and control characters escaped. */
  static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch == '"' || ch == '\\') {
        out.append('\\').append(ch);
      } else if (ch < 0x20) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
      } else {
        out.append(ch);
      }
    }
    return out.append('"').toString();
  }
}
