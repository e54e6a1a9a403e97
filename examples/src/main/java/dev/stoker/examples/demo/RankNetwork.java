package dev.stoker.examples.demo;

import dev.stoker.loader.Batch;
import dev.stoker.spark.RankContext;
import java.io.Serializable;

/**
 * A demo network on one rank, as {@link DemoTraining} drives it: every rank starts from the same
 * weights, takes one data-parallel step per batch (its gradients averaged with the other ranks'),
 * and classifies its share of the test images after each epoch.
 */
interface RankNetwork extends AutoCloseable {
  /** Opens the network on a rank; travels to the ranks with the weights to start from. */
  interface Factory extends Serializable {
    RankNetwork open(RankContext rank);
  }

  /** Starts epoch {@code epoch} (0-based): its learning rate. */
  void startEpoch(int epoch);

  /** One data-parallel step on {@code batch}; returns the batch's mean loss. */
  double step(Batch batch);

  /** Steps of this epoch after which the ranks compared their weights and found them equal. */
  long checks();

  /** How many of the test images {@code [from, to)} the current weights classify right. */
  long rightAnswers(TestSet test, int from, int to);

  /** The weights now, to send back to the driver (a copy where they live in native memory). */
  Serializable weights();

  /** The framework's intra-op threads on this rank (1 for plain Java). */
  int threads();

  /** Frees what the network holds; a second call does nothing. */
  @Override
  void close();
}
