package dev.stoker.examples.demo;

import java.io.Serializable;

/**
 * One epoch on one rank, as the rank measured it.
 *
 * @param epoch 0-based
 * @param lossSum the sum of the batches' mean losses
 * @param seconds the epoch's wall time on this rank, the loader's waits included, the test left out
 * @param stepSeconds the part of {@code seconds} in the network's steps
 * @param checks steps after which the ranks' weights were compared and found equal (0 for a network
 *     that does not compare)
 * @param droppedRows rows of the rank's share its loader left out (dropLast)
 * @param testRight test images classified right after the epoch, over all ranks
 * @param testRows the test images
 * @param verdict the loader's bottleneck verdict of the epoch
 * @param residentBytes the rank's process's resident memory at the epoch's end (Linux), or -1
 */
record EpochFigures(
    int epoch,
    double lossSum,
    long batches,
    long samples,
    double seconds,
    double stepSeconds,
    long checks,
    long droppedRows,
    long testRight,
    int testRows,
    String verdict,
    long residentBytes)
    implements Serializable {

  /** The share of the test images classified right. */
  double accuracy() {
    return testRows == 0 ? Double.NaN : (double) testRight / testRows;
  }
}
