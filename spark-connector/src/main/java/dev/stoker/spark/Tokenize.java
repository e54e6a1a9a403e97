package dev.stoker.spark;

import com.knuddels.jtokkit.api.Encoding;
import dev.stoker.loader.tokens.Tokenizers;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataTypes;

/**
 * A SQL function that tokenizes text with one of {@link Tokenizers}' byte-pair encodings, the ids
 * the same as {@code format("stoker")}'s {@code tokenizer} option makes: {@code
 * stoker_tokenize(text, 'r50k_base')} is an {@code array<int>}, null for a null text. It turns a
 * text column into documents of ids once, for {@code pack} to count their tokens from the footers.
 *
 * <p>From Python: {@code spark.udf.registerJavaFunction("stoker_tokenize",
 * "dev.stoker.spark.Tokenize", ArrayType(IntegerType()))}.
 */
public final class Tokenize implements UDF2<String, String, int[]> {
  private static final long serialVersionUID = 1L;

  /** The name {@link #register} gives the function. */
  public static final String NAME = "stoker_tokenize";

  private static final Map<String, Encoding> ENCODINGS = new ConcurrentHashMap<>();

  /** Registers the function as {@link #NAME} in {@code spark}. */
  public static void register(SparkSession spark) {
    spark
        .udf()
        .register(NAME, new Tokenize(), DataTypes.createArrayType(DataTypes.IntegerType, false));
  }

  /**
   * The ids of {@code text} in {@code encoding}.
   *
   * @throws IllegalArgumentException naming the encodings there are, for an unknown one
   */
  @Override
  public int[] call(String text, String encoding) {
    if (text == null) {
      return null;
    }
    return Tokenizers.encode(ENCODINGS.computeIfAbsent(encoding, Tokenizers::encoding), text);
  }
}
