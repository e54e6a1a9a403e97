package dev.stoker.loader.metrics;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * How close an epoch's order comes to a uniform random permutation, by two measures, computed from
 * the rows each rank was given, in order:
 *
 * <ul>
 *   <li>{@code gapEntropyBits}: the entropy of the gaps between consecutive rows of a rank, each
 *       row named by its index in the input's storage order (the measure of Mosaic's shuffle
 *       simulator). An order that follows storage has one gap, 0 bits; a shuffle within windows of
 *       {@code W} rows about {@code log2(2W)}; a uniform permutation of {@code n} rows about {@code
 *       log2(n)}: roughly, the log of the span rows are drawn from.
 *   <li>{@code labelTv}: on a labelled input, the mean over training steps of the total-variation
 *       distance between the label histogram of the step's global batch (every rank's batch of that
 *       step together, what one gradient step averages over) and the histogram of all the rows. 0
 *       when every batch holds the labels in the input's proportions; near 1 when batches hold one
 *       label each, as an input sorted by label read in order gives.
 * </ul>
 *
 * Compare either with {@link #ofRandomPermutation} of the same rows: a measure alone depends on the
 * batch size and the number of rows and labels.
 *
 * @param gapEntropyBits the entropy of the gaps between consecutive rows, in bits
 * @param labelTv the mean total-variation distance of a step's labels from all rows' labels
 * @param steps the full steps measured (batches every rank has)
 */
public record ShuffleQuality(double gapEntropyBits, double labelTv, int steps) {
  /** Most labels: they index a histogram. */
  public static final int MAX_LABELS = 1 << 16;

  /**
   * The quality of one epoch: {@code rows[r]} the rows rank {@code r} was given in order (their
   * indices in storage order), {@code labels[r]} their labels; {@code batchSize} rows per rank and
   * step (a rank's rows past its last full batch are left out of the label measure).
   *
   * @throws IllegalArgumentException for ranks of unequal arrays, a label below 0 or of {@link
   *     #MAX_LABELS} or more, or a batch size below 1
   */
  public static ShuffleQuality of(long[][] rows, int[][] labels, int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize: " + batchSize + " (expected: >= 1)");
    }
    if (rows.length != labels.length) {
      throw new IllegalArgumentException(
          rows.length + " ranks of rows but " + labels.length + " of labels (expected: the same)");
    }
    for (int r = 0; r < rows.length; r++) {
      if (rows[r].length != labels[r].length) {
        throw new IllegalArgumentException(
            "rank "
                + r
                + ": "
                + rows[r].length
                + " rows but "
                + labels[r].length
                + " labels (expected: one label per row)");
      }
    }
    int steps = Integer.MAX_VALUE;
    for (int[] rank : labels) {
      steps = Math.min(steps, rank.length / batchSize);
    }
    steps = labels.length == 0 ? 0 : steps;
    return new ShuffleQuality(gapEntropy(rows), labelTv(labels, batchSize, steps), steps);
  }

  /**
   * The quality of a uniform random permutation of the same rows and labels, dealt to the ranks in
   * the same counts: what the measures give for the best order there is.
   */
  public static ShuffleQuality ofRandomPermutation(
      long[][] rows, int[][] labels, int batchSize, long seed) {
    int total = 0;
    for (long[] rank : rows) {
      total += rank.length;
    }
    long[] allRows = new long[total];
    int[] allLabels = new int[total];
    int at = 0;
    for (int r = 0; r < rows.length; r++) {
      System.arraycopy(rows[r], 0, allRows, at, rows[r].length);
      System.arraycopy(labels[r], 0, allLabels, at, labels[r].length);
      at += rows[r].length;
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = total - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long row = allRows[i];
      allRows[i] = allRows[j];
      allRows[j] = row;
      int label = allLabels[i];
      allLabels[i] = allLabels[j];
      allLabels[j] = label;
    }
    long[][] dealtRows = new long[rows.length][];
    int[][] dealtLabels = new int[rows.length][];
    at = 0;
    for (int r = 0; r < rows.length; r++) {
      dealtRows[r] = Arrays.copyOfRange(allRows, at, at + rows[r].length);
      dealtLabels[r] = Arrays.copyOfRange(allLabels, at, at + rows[r].length);
      at += rows[r].length;
    }
    return of(dealtRows, dealtLabels, batchSize);
  }

  /** The entropy in bits of the gaps between consecutive rows of each rank, pooled. */
  static double gapEntropy(long[][] rows) {
    int gaps = 0;
    for (long[] rank : rows) {
      gaps += Math.max(0, rank.length - 1);
    }
    if (gaps == 0) {
      return 0;
    }
    long[] all = new long[gaps];
    int at = 0;
    for (long[] rank : rows) {
      for (int i = 1; i < rank.length; i++) {
        all[at++] = rank[i] - rank[i - 1];
      }
    }
    Arrays.sort(all);
    double entropy = 0;
    for (int i = 0; i < gaps; ) {
      int j = i;
      while (j < gaps && all[j] == all[i]) {
        j++;
      }
      double p = (double) (j - i) / gaps;
      entropy -= p * Math.log(p);
      i = j;
    }
    return entropy / Math.log(2);
  }

  /** The mean total-variation distance of each step's labels from all rows' labels. */
  static double labelTv(int[][] labels, int batchSize, int steps) {
    int classes = 0;
    long rows = 0;
    for (int r = 0; r < labels.length; r++) {
      for (int i = 0; i < labels[r].length; i++) {
        int label = labels[r][i];
        if (label < 0 || label >= MAX_LABELS) {
          throw new IllegalArgumentException(
              "label "
                  + label
                  + " of row "
                  + i
                  + " of rank "
                  + r
                  + " (expected: 0 to "
                  + (MAX_LABELS - 1)
                  + ", a class index)");
        }
        classes = Math.max(classes, label + 1);
      }
      rows += labels[r].length;
    }
    if (steps == 0 || rows == 0) {
      return 0;
    }
    long[] counts = new long[classes];
    for (int[] rank : labels) {
      for (int label : rank) {
        counts[label]++;
      }
    }
    return labelTv(labels, batchSize, steps, counts);
  }

  /**
   * The mean over {@code steps} steps of the total-variation distance between the labels of a
   * step's global batch ({@code labels[r]}'s rows {@code [s * batchSize, (s + 1) * batchSize)} of
   * every rank) and {@code reference}, the count of each label among all of the input's rows (a
   * step's label of {@code reference.length} or more counts as a class the input lacks).
   */
  public static double labelTv(int[][] labels, int batchSize, int steps, long[] reference) {
    if (steps == 0 || labels.length == 0) {
      return 0;
    }
    int classes = reference.length;
    for (int[] rank : labels) {
      for (int i = 0; i < steps * batchSize; i++) {
        classes = Math.max(classes, rank[i] + 1);
      }
    }
    long rows = 0;
    for (long count : reference) {
      rows += count;
    }
    double[] global = new double[classes];
    for (int c = 0; c < reference.length; c++) {
      global[c] = rows == 0 ? 0 : (double) reference[c] / rows;
    }
    int[] step = new int[classes];
    double perStep = (double) batchSize * labels.length;
    double sum = 0;
    for (int s = 0; s < steps; s++) {
      Arrays.fill(step, 0);
      for (int[] rank : labels) {
        for (int i = s * batchSize; i < (s + 1) * batchSize; i++) {
          step[rank[i]]++;
        }
      }
      double distance = 0;
      for (int c = 0; c < classes; c++) {
        distance += Math.abs(step[c] / perStep - global[c]);
      }
      sum += distance / 2;
    }
    return sum / steps;
  }
}
