package dev.stoker.loader.tokens;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The byte-pair encodings a text column can be tokenized with: OpenAI's tiktoken vocabularies as
 * JTokkit ships them inside its jar ({@code r50k_base} is GPT-2's, {@code cl100k_base} GPT-4's), so
 * tokenizing needs no download. Special tokens in the text are encoded as ordinary text.
 */
public final class Tokenizers {
  private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

  private Tokenizers() {}

  /** The encodings' names, e.g. {@code r50k_base}. */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    for (EncodingType type : EncodingType.values()) {
      names.add(type.getName());
    }
    return names;
  }

  /**
   * The encoding named {@code name}.
   *
   * @throws IllegalArgumentException naming the encodings there are, if there is none of that name
   */
  public static Encoding encoding(String name) {
    EncodingType type =
        EncodingType.fromName(name == null ? "" : name.trim().toLowerCase(Locale.ROOT))
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "tokenizer '"
                            + name
                            + "' (expected one of: "
                            + String.join(", ", names())
                            + ")"));
    return REGISTRY.getEncoding(type);
  }

  /** The ids of {@code text} in {@code encoding}. */
  public static int[] encode(Encoding encoding, String text) {
    return encoding.encodeOrdinary(text).toArray();
  }
}
