package dev.stoker.examples.demo;

import dev.stoker.spark.RankFunction;
import java.io.Serializable;
import java.util.List;

/**
 * A network the demo trains: the function each rank runs for an epoch, what it returns, and the
 * test accuracy of the model the epoch left. {@link #open} picks the CNN in PyTorch, or the MLP in
 * plain Java when asked for or when PyTorch's natives cannot be loaded here.
 */
interface DemoModel {
  /** What every rank returns from an epoch. */
  interface Outcome extends Serializable {
    /** The sum of the batches' mean losses on this rank. */
    double lossSum();

    long batches();
  }

  /** One line: the network, e.g. {@code MLP 784-128-10}. */
  String description();

  /** The function each rank runs for epoch {@code epoch}, from the current weights. */
  RankFunction<? extends Outcome> epoch(int epoch);

  /** Takes the weights the epoch left (rank 0's outcome; every rank holds the same). */
  void update(List<? extends Outcome> outcomes);

  /** The share of the test images the current weights classify right. */
  double accuracy(TestSet test);

  /** What the closing line adds after the accuracy (e.g. the step's samples/s), or empty. */
  default String closingNote() {
    return "";
  }

  /** A line on how the last epoch ran on the ranks (threads, step time), or empty. */
  default String lastEpochNote() {
    return "";
  }

  /**
   * The model {@code options.model} names. For {@code cnn} where PyTorch's natives cannot be loaded
   * (a jar missing, a platform without natives), the MLP, saying why on {@code out}.
   */
  static DemoModel open(DemoOptions options, java.io.PrintStream out) {
    if (options.model == DemoOptions.Model.CNN) {
      String why;
      try {
        return CnnModel.open(options);
      } catch (LinkageError | IllegalStateException e) {
        why = e.getMessage();
      }
      out.println(
          "stoker demo: the CNN needs PyTorch's natives, which cannot be used here ("
              + why
              + "); training the MLP instead (--model mlp)");
      options.model = DemoOptions.Model.MLP;
    }
    return new MlpModel(options);
  }
}
