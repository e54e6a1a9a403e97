package dev.stoker.loader.util;

import java.util.List;
import java.util.Locale;

/**
 * The known name closest to a mistyped one, for "did you mean" hints. Names are compared ignoring
 * case, {@code _} and {@code -}, by edit distance (insertions, deletions, substitutions and swaps
 * of neighbours); a known name of {@code n} letters is close within {@code min(2, n / 3)} edits.
 */
public final class ClosestName {
  private ClosestName() {}

  /** Closest of {@code known} to {@code given}, first of equals, or null if none is close. */
  public static String of(String given, List<String> known) {
    String target = normalize(given);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String name : known) {
      String candidate = normalize(name);
      if (Math.abs(candidate.length() - target.length()) > 2) {
        continue;
      }
      int distance = distance(target, candidate);
      if (distance < bestDistance && distance <= 2 && 3 * distance <= candidate.length()) {
        best = name;
        bestDistance = distance;
      }
    }
    return best;
  }

  private static String normalize(String name) {
    return name.toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
  }

  /** Optimal string alignment distance: Levenshtein plus swaps of two neighbours. */
  public static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
