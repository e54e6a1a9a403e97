package dev.stoker.spark.run;

import dev.stoker.spark.parquet.EpochPlanner;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.run.balance.RankSizing;
import dev.stoker.spark.shard.ShardBlock;
import java.io.Serializable;
import org.apache.spark.TaskContext;
import scala.Function1;
import scala.Tuple2;
import scala.collection.AbstractIterator;

/**
 * The function of the barrier stage: runs one rank over its partition and yields its outcome, keyed
 * by rank. Two kinds, by where the rows come from: the input's own partition ({@link #inPlace}) or
 * the blocks the balancing shuffle sent ({@link #shuffled}).
 *
 * @param <T> the elements of the stage's input partitions
 */
public abstract class RankTask<T>
    implements Function1<
            scala.collection.Iterator<T>, scala.collection.Iterator<Tuple2<Integer, RankOutcome>>>,
        Serializable {
  private static final long serialVersionUID = 1L;

  final RankSpec spec;

  private RankTask(RankSpec spec) {
    this.spec = spec;
  }

  /** Ranks reading their input partition (internal rows or columnar batches) themselves. */
  static RankTask<Object> inPlace(RankSpec spec) {
    return new RankTask<>(spec) {
      private static final long serialVersionUID = 1L;

      @Override
      ShardSource source(scala.collection.Iterator<Object> input, int rank) {
        return ShardSource.inPlace(input, spec.copier, rank);
      }
    };
  }

  /**
   * Ranks streaming their runs from the Parquet files; the stage's input is one element per rank,
   * its runs, so that each task carries its own share of the plan only. {@code plan} holds the
   * plan's figures, without the runs; {@code epochs}, if not null, plans each epoch again over the
   * whole input on the ranks.
   */
  static RankTask<RankRuns> planned(
      RankSpec spec, ReadConfig config, ReadPlan plan, EpochPlanner epochs) {
    return new RankTask<>(spec) {
      private static final long serialVersionUID = 1L;

      @Override
      ShardSource source(scala.collection.Iterator<RankRuns> input, int rank) {
        throw new IllegalStateException("a streaming rank has no shard source");
      }

      @Override
      RankOutcome outcome(scala.collection.Iterator<RankRuns> input) {
        if (!input.hasNext()) {
          throw new IllegalStateException(
              "rank " + TaskContext.getPartitionId() + ": no runs in its partition");
        }
        return new RankRuntime(spec, null).runPlanned(config, plan, input.next(), epochs);
      }
    };
  }

  /** Ranks of a balanced input of {@code totalRows} rows, as the shuffle deals them. */
  static RankTask<Tuple2<Integer, ShardBlock>> shuffled(RankSpec spec, long totalRows) {
    return new RankTask<>(spec) {
      private static final long serialVersionUID = 1L;

      @Override
      ShardSource source(scala.collection.Iterator<Tuple2<Integer, ShardBlock>> blocks, int rank) {
        return ShardSource.shuffled(
            blocks, RankSizing.balancedRows(totalRows, spec.worldSize, rank), rank);
      }
    };
  }

  abstract ShardSource source(scala.collection.Iterator<T> input, int rank);

  /** Runs the rank over its input partition. */
  RankOutcome outcome(scala.collection.Iterator<T> input) {
    int rank = TaskContext.getPartitionId();
    return new RankRuntime(spec, source(input, rank)).run();
  }

  @Override
  public scala.collection.Iterator<Tuple2<Integer, RankOutcome>> apply(
      scala.collection.Iterator<T> input) {
    RankOutcome outcome = outcome(input);
    return new AbstractIterator<>() {
      private boolean done;

      @Override
      public boolean hasNext() {
        return !done;
      }

      @Override
      public Tuple2<Integer, RankOutcome> next() {
        if (done) {
          throw new java.util.NoSuchElementException();
        }
        done = true;
        return new Tuple2<>(outcome.rank, outcome);
      }
    };
  }
}
