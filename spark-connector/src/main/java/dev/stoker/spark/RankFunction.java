package dev.stoker.spark;

import dev.stoker.loader.DataLoader;
import java.io.Serializable;

/**
 * What every rank runs, in its barrier task: the body of a DDP training script. It gets the rank's
 * context (rank, worldSize, device, the exchange among ranks) and a {@link DataLoader} over the
 * rank's shard, which Stoker builds and closes; what it returns comes back to the driver in rank
 * order. Sent to the executors, so it must be serializable (a lambda is, unless it captures
 * something that is not, such as the SparkSession).
 *
 * @param <R> what a rank returns (serializable, or known to the session's serializer)
 */
@FunctionalInterface
public interface RankFunction<R> extends Serializable {
  R run(RankContext rank, DataLoader loader) throws Exception;
}
