package dev.stoker.examples.demo;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DataLoader;
import dev.stoker.spark.RankContext;
import dev.stoker.spark.RankFunction;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;

/**
 * The demo's training on one rank, every epoch in the one barrier stage, as DDP trains: each epoch
 * its batches (in that epoch's order, which the read plans over the whole input) through the
 * network's data-parallel steps, then the test accuracy, each rank classifying its share of the
 * test images and the ranks summing the right answers, so that every rank holds the figure.
 */
final class DemoTraining implements RankFunction<DemoTraining.Outcome> {
  private static final long serialVersionUID = 1L;

  /**
   * What a rank returns.
   *
   * @param weights the weights after the last epoch (rank 0 only; the others hold the same)
   * @param epochs each epoch's figures on this rank
   * @param threads the framework's intra-op threads on this rank
   */
  record Outcome(Serializable weights, List<EpochFigures> epochs, int threads)
      implements Serializable {}

  private final RankNetwork.Factory network;
  private final int epochs;
  private final Broadcast<TestSet> test;

  /**
   * @param network the network to train, from the weights it carries
   * @param test the test images, sent once to every executor
   */
  DemoTraining(RankNetwork.Factory network, int epochs, Broadcast<TestSet> test) {
    this.network = network;
    this.epochs = epochs;
    this.test = test;
  }

  @Override
  public Outcome run(RankContext rank, DataLoader loader) {
    TestSet images = test.value();
    int from = images.shareStart(rank.rank(), rank.worldSize());
    int to = images.shareStart(rank.rank() + 1, rank.worldSize());
    List<EpochFigures> figures = new ArrayList<>();
    try (RankNetwork net = network.open(rank)) {
      for (int epoch = 0; epoch < epochs; epoch++) {
        net.startEpoch(epoch);
        long begin = System.nanoTime();
        long stepNanos = 0;
        double loss = 0;
        long batches = 0;
        long samples = 0;
        for (Batch batch : loader.epoch(epoch)) {
          long stepBegin = System.nanoTime();
          loss += net.step(batch);
          stepNanos += System.nanoTime() - stepBegin;
          batches++;
          samples += batch.size();
        }
        double seconds = (System.nanoTime() - begin) / 1e9;
        long[] right = {net.rightAnswers(images, from, to)};
        rank.allReduceSum(right);
        figures.add(
            new EpochFigures(
                epoch,
                loss,
                batches,
                samples,
                seconds,
                stepNanos / 1e9,
                net.checks(),
                loader.droppedRows(epoch),
                right[0],
                images.size(),
                loader.report().verdict().label(),
                residentBytes()));
      }
      return new Outcome(rank.rank() == 0 ? net.weights() : null, figures, net.threads());
    }
  }

  /** VmRSS of this process from {@code /proc/self/status}, or -1 where there is none. */
  static long residentBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
