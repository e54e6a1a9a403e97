package dev.stoker.spark.run;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What each rank tells the others once its shard is read, in one allGather: the rows it holds, or
 * why it could not read them. Every rank then decides alike: all go on, or all stop.
 */
public final class RankStatus {
  private static final String OK = "ok ";
  private static final String BAD = "bad ";

  private final long[] rows;
  private final Set<String> problems;

  private RankStatus(long[] rows, Set<String> problems) {
    this.rows = rows;
    this.problems = problems;
  }

  static String ok(long rows) {
    return OK + rows;
  }

  static String bad(String message) {
    return BAD
        + Base64.getEncoder()
            .encodeToString(String.valueOf(message).getBytes(StandardCharsets.UTF_8));
  }

  /** Reads every rank's message, index = rank. */
  static RankStatus of(String[] messages) {
    long[] rows = new long[messages.length];
    Set<String> problems = new LinkedHashSet<>();
    for (int r = 0; r < messages.length; r++) {
      String message = messages[r];
      if (message.startsWith(OK)) {
        rows[r] = Long.parseLong(message.substring(OK.length()));
      } else if (message.startsWith(BAD)) {
        rows[r] = -1;
        problems.add(
            new String(
                Base64.getDecoder().decode(message.substring(BAD.length())),
                StandardCharsets.UTF_8));
      } else {
        throw new IllegalStateException(
            "rank "
                + r
                + " sent '"
                + message
                + "' (expected: "
                + "its status; are all ranks running the same version of Stoker?)");
      }
    }
    return new RankStatus(rows, problems);
  }

  /** Rows per rank. */
  long[] rows() {
    return rows.clone();
  }

  /** What went wrong on any rank, each once, or empty. */
  List<String> problems() {
    return new ArrayList<>(problems);
  }

  /** Whether the ranks' rows differ by at most one. */
  boolean balanced() {
    long least = Long.MAX_VALUE;
    long most = Long.MIN_VALUE;
    for (long n : rows) {
      least = Math.min(least, n);
      most = Math.max(most, n);
    }
    return most - least <= 1;
  }
}
