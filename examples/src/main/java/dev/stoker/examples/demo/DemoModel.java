package dev.stoker.examples.demo;

import java.io.Serializable;
import java.util.List;

/**
 * A network the demo trains: what travels to the ranks to train it ({@link RankNetwork.Factory}),
 * the weights it comes back with, and what it adds to the epoch's lines. {@link #open} picks the
 * CNN in PyTorch, or the MLP in plain Java when asked for or when PyTorch's natives cannot be
 * loaded here.
 */
interface DemoModel {
  /** One line: the network, e.g. {@code MLP 784-128-10}. */
  String description();

  /** What the ranks open to train every epoch of the run, from the current weights. */
  RankNetwork.Factory network();

  /** Takes the weights the run left (rank 0's; every rank holds the same). */
  void update(Serializable weights);

  /** What the closing line adds after the accuracy (e.g. the step's samples/s), or empty. */
  default String closingNote(List<DemoTraining.Outcome> ranks) {
    return "";
  }

  /** A line on how epoch {@code epoch} ran on the ranks (threads, step time), or empty. */
  default String epochNote(List<DemoTraining.Outcome> ranks, int epoch) {
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
