package dev.stoker.spark;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DataLoader;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What a rank of a test saw: the ids of its rows per epoch in delivery order, the size of every
 * batch, and whether every tensor value matched its row's id ({@code x[e] = id * 1000 + e}).
 */
public record RankIds(
    int rank, List<List<Long>> epochs, List<Integer> batchSizes, boolean consistent)
    implements Serializable {

  /** A rank function reading {@code epochs} epochs of a loader over {@link TestFrames}. */
  public static RankFunction<RankIds> reading(int epochs) {
    return (rank, loader) -> read(rank.rank(), loader, epochs);
  }

  public static RankIds read(int rank, DataLoader loader, int epochs) {
    List<List<Long>> all = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    boolean consistent = true;
    int x = loader.layout().schema().indexOf("x");
    int id = loader.layout().schema().indexOf("id");
    int width = loader.layout().schema().field(x).elements();
    for (int epoch = 0; epoch < epochs; epoch++) {
      List<Long> ids = new ArrayList<>();
      for (Batch batch : loader.epoch(epoch)) {
        sizes.add(batch.size());
        for (int r = 0; r < batch.size(); r++) {
          long value = batch.getLong(id, r, 0);
          ids.add(value);
          for (int e = 0; e < width; e++) {
            consistent &= batch.getFloat(x, r, e) == value * 1000 + e;
          }
        }
      }
      all.add(ids);
    }
    return new RankIds(rank, all, sizes, consistent);
  }
}
