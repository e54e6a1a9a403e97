package dev.stoker.loader.tokens;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * The read options that describe a {@link TokenLayout}, by name as a user writes them: {@code pack}
 * or {@code pad} (the row length) and the options that go with them.
 */
public final class TokenOptions {
  public static final String PACK = "pack";
  public static final String PAD = "pad";
  public static final String EOD_TOKEN = "eodToken";
  public static final String PAD_TOKEN = "padToken";
  public static final String SHIFT_LABELS = "shiftLabels";
  public static final String DOCUMENT_BOUNDARIES = "documentBoundaries";
  public static final String LONG_DOCUMENTS = "longDocuments";
  public static final String VOCAB_SIZE = "vocabSize";
  public static final String MAX_DOCUMENT_TOKENS = "maxDocumentTokens";
  public static final String TOKENIZER = "tokenizer";

  /** Every option's name. */
  public static final List<String> NAMES =
      List.of(
          PACK,
          PAD,
          EOD_TOKEN,
          PAD_TOKEN,
          SHIFT_LABELS,
          DOCUMENT_BOUNDARIES,
          LONG_DOCUMENTS,
          VOCAB_SIZE,
          MAX_DOCUMENT_TOKENS,
          TOKENIZER);

  private TokenOptions() {}

  /**
   * The layout the options {@code option} gives (each name to its value, or null where not set)
   * describe, or null if neither {@code pack} nor {@code pad} is set.
   *
   * @throws IllegalArgumentException naming the option, its value and what it takes, for a value
   *     that is not one, both of pack and pad, or an option of the other mode
   */
  public static TokenLayout parse(UnaryOperator<String> option) {
    String pack = option.apply(PACK);
    String pad = option.apply(PAD);
    if (pack == null && pad == null) {
      List<String> stray = new ArrayList<>();
      for (String name : NAMES) {
        if (option.apply(name) != null) {
          stray.add(name);
        }
      }
      if (!stray.isEmpty()) {
        throw new IllegalArgumentException(
            "option(s) "
                + String.join(", ", stray)
                + " without pack or pad (expected: pack=LENGTH or pad=LENGTH beside them)");
      }
      return null;
    }
    if (pack != null && pad != null) {
      throw new IllegalArgumentException(
          "both pack=" + pack + " and pad=" + pad + " (expected: one of them)");
    }
    boolean packing = pack != null;
    int length = (int) number(packing ? PACK : PAD, packing ? pack : pad, 1, 1 << 24);
    TokenLayout layout = packing ? TokenLayout.packed(length) : TokenLayout.padded(length);
    String eod = option.apply(EOD_TOKEN);
    if (eod != null) {
      layout = layout.withEodToken(number(EOD_TOKEN, eod, 0, Long.MAX_VALUE));
    }
    String padToken = option.apply(PAD_TOKEN);
    if (padToken != null) {
      if (packing) {
        throw new IllegalArgumentException(
            PAD_TOKEN + "=" + padToken + " with pack (expected: padToken with pad only)");
      }
      layout = layout.withPadToken(number(PAD_TOKEN, padToken, Long.MIN_VALUE, Long.MAX_VALUE));
    }
    String labels = option.apply(SHIFT_LABELS);
    if (labels != null) {
      layout = layout.withShiftLabels(bool(SHIFT_LABELS, labels));
    }
    String boundaries = option.apply(DOCUMENT_BOUNDARIES);
    if (boundaries != null) {
      if (!packing) {
        throw new IllegalArgumentException(
            DOCUMENT_BOUNDARIES
                + "="
                + boundaries
                + " with pad (expected: with pack only; padded rows carry attention_mask)");
      }
      layout =
          layout.withBoundaries(
              choice(DOCUMENT_BOUNDARIES, boundaries, TokenLayout.Boundaries.class));
    }
    String longDocuments = option.apply(LONG_DOCUMENTS);
    if (longDocuments != null) {
      layout =
          layout.withLongDocuments(
              choice(LONG_DOCUMENTS, longDocuments, TokenLayout.LongDocuments.class));
    }
    String vocab = option.apply(VOCAB_SIZE);
    String max = option.apply(MAX_DOCUMENT_TOKENS);
    layout =
        layout.withChecks(
            vocab == null ? -1 : number(VOCAB_SIZE, vocab, 1, Long.MAX_VALUE),
            max == null ? -1 : number(MAX_DOCUMENT_TOKENS, max, 1, Integer.MAX_VALUE));
    String tokenizer = option.apply(TOKENIZER);
    if (tokenizer != null) {
      Tokenizers.encoding(tokenizer);
      layout = layout.withTokenizer(tokenizer.trim().toLowerCase(Locale.ROOT));
    }
    return layout;
  }

  private static long number(String name, String value, long min, long max) {
    long parsed;
    try {
      parsed = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      parsed = Long.MIN_VALUE;
      min = Math.max(min, Long.MIN_VALUE + 1);
    }
    if (parsed < min || parsed > max) {
      throw new IllegalArgumentException(
          String.format(
              "option %s='%s' (expected: a whole number from %d to %d)", name, value, min, max));
    }
    return parsed;
  }

  private static boolean bool(String name, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (!v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException(
          "option " + name + "='" + value + "' (expected: true or false)");
    }
    return v.equals("true");
  }

  private static <E extends Enum<E>> E choice(String name, String value, Class<E> type) {
    String wanted = value.trim().replace("_", "");
    List<String> names = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      String camel = camel(e.name());
      names.add(camel);
      if (camel.equalsIgnoreCase(wanted)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "option " + name + "='" + value + "' (expected one of: " + String.join(", ", names) + ")");
  }

  /** {@code DOCUMENT_IDS} as {@code documentIds}. */
  private static String camel(String constant) {
    StringBuilder out = new StringBuilder();
    boolean upper = false;
    for (char c : constant.toLowerCase(Locale.ROOT).toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }
}
