package dev.stoker.spark.run;

import dev.stoker.spark.RankReport;
import dev.stoker.spark.ui.RankFigures;
import java.io.Serializable;

/**
 * What one rank's barrier task sends back to the driver: its result and report, or why it did not
 * run the function: the input was not balanced after all (with the rows it holds), or the input
 * cannot be loaded as declared (with the message, the same on every rank).
 */
public final class RankOutcome implements Serializable {
  private static final long serialVersionUID = 1L;

  enum Kind {
    DONE,
    UNBALANCED,
    REFUSED
  }

  final int rank;
  final Kind kind;
  final long rows;
  final String message;
  final byte[] result;
  final RankReport report;

  /** The rank's last figures for the Stoker page (DONE only), or null. */
  RankFigures figures;

  private RankOutcome(
      int rank, Kind kind, long rows, String message, byte[] result, RankReport report) {
    this.rank = rank;
    this.kind = kind;
    this.rows = rows;
    this.message = message;
    this.result = result;
    this.report = report;
  }

  static RankOutcome done(int rank, byte[] result, RankReport report) {
    return new RankOutcome(rank, Kind.DONE, report.rows(), null, result, report);
  }

  static RankOutcome unbalanced(int rank, long rows) {
    return new RankOutcome(rank, Kind.UNBALANCED, rows, null, null, null);
  }

  static RankOutcome refused(int rank, String message) {
    return new RankOutcome(rank, Kind.REFUSED, -1, message, null, null);
  }
}
