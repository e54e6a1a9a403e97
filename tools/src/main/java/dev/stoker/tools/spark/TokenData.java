package dev.stoker.tools.spark;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The tokens benchmark's data: tokenized documents as one {@code array<int>} column {@code tokens}
 * in the layout Spark writes, snappy-compressed, in files of at most {@value #DOCUMENTS_PER_FILE}
 * documents (at least two files, one per rank of the peer) and row groups of 16 MiB.
 *
 * <p>Document lengths follow a real corpus's long tail: lognormal with median {@value #MEDIAN}
 * tokens and sigma {@value #SIGMA} (so a mean of about 411 tokens, one document in 40 longer than
 * 2,048 tokens, one in 1,000 longer than 8,192), rounded, at least 1 and at most {@value
 * #MAX_LENGTH}. Token ids are uniform in {@code [0, }{@value #VOCABULARY}{@code )} (GPT-2's
 * vocabulary; Parquet stores them dictionary-encoded, about two bytes a token, as it would real
 * ids). Document {@code i} is drawn from a generator seeded with {@code seed + i}, so the data is
 * the same whatever the files.
 *
 * <p>Written once per document count and seed into a folder of its own and reused: {@value
 * #MANIFEST}, written last, names the generator, the counts and every file with its size; a folder
 * whose manifest does not match (a run stopped while writing, another generator) is written anew.
 */
final class TokenData {
  /** Median tokens of a document. */
  static final int MEDIAN = 200;

  /** Sigma of the lognormal of document lengths. */
  static final double SIGMA = 1.2;

  /** The longest document. */
  static final int MAX_LENGTH = 32_768;

  /** Token ids are below this: GPT-2's vocabulary. */
  static final int VOCABULARY = 50_257;

  /** The most documents a file holds. */
  static final int DOCUMENTS_PER_FILE = 50_000;

  /** Parquet's row group size. */
  static final long ROW_GROUP_BYTES = 16L << 20;

  /**
   * The file naming what the folder holds, written last; its leading {@code _} makes readers skip
   * it.
   */
  static final String MANIFEST = "_tokens.properties";

  /** Names the generator in the manifest; a change of the data's recipe changes it. */
  static final String GENERATOR =
      String.format(
          Locale.ROOT,
          "lognormal(median %d, sigma %.2f, 1..%d) ids uniform below %d, v1",
          MEDIAN,
          SIGMA,
          MAX_LENGTH,
          VOCABULARY);

  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message spark_schema { optional group tokens (LIST) { "
              + "repeated group list { optional int32 element; } } }");

  /** The data: its folder of Parquet files, documents and tokens, and whether it was reused. */
  record Written(Path dir, List<Path> files, long documents, long tokens, boolean reused) {}

  private TokenData() {}

  /**
   * The folder under {@code parent} that holds {@code documents} documents of {@code seed}: {@code
   * tokens-<documents>-seed<seed>}.
   */
  static Path folder(Path parent, long documents, long seed) {
    return parent.resolve("tokens-" + documents + "-seed" + seed);
  }

  /**
   * The documents in {@link #folder}: reused when its manifest matches, else written anew.
   *
   * @throws IllegalArgumentException if documents is not positive
   */
  static Written write(Path parent, long documents, long seed) {
    if (documents <= 0) {
      throw new IllegalArgumentException("documents: " + documents + " (expected: > 0)");
    }
    Path dir = folder(parent, documents, seed);
    Written found = complete(dir, documents, seed);
    if (found != null) {
      return found;
    }
    try {
      if (Files.exists(dir)) {
        SourceBench.delete(dir);
      }
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("making " + dir + ": " + e, e);
    }
    int files = files(documents);
    List<Path> paths = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      paths.add(dir.resolve(String.format(Locale.ROOT, "part-%05d.snappy.parquet", f)));
    }
    IntStream.range(0, files)
        .parallel()
        .forEach(
            f -> writeFile(paths.get(f), documents * f / files, documents * (f + 1) / files, seed));
    long tokens = tokens(documents, seed);
    Properties manifest = new Properties();
    manifest.setProperty("generator", GENERATOR);
    manifest.setProperty("seed", Long.toString(seed));
    manifest.setProperty("documents", Long.toString(documents));
    manifest.setProperty("tokens", Long.toString(tokens));
    manifest.setProperty("files", Integer.toString(files));
    try {
      for (Path path : paths) {
        manifest.setProperty("file." + path.getFileName(), Long.toString(Files.size(path)));
      }
      try (OutputStream out = Files.newOutputStream(dir.resolve(MANIFEST))) {
        manifest.store(out, "documents of token ids for stoker bench --workload tokens");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + dir.resolve(MANIFEST) + ": " + e, e);
    }
    return new Written(dir, paths, documents, tokens, false);
  }

  /** Files for {@code documents}: at most {@value #DOCUMENTS_PER_FILE} each, at least two. */
  static int files(long documents) {
    return (int) Math.max(2, (documents + DOCUMENTS_PER_FILE - 1) / DOCUMENTS_PER_FILE);
  }

  /** Document {@code i}'s tokens. */
  static int[] document(long i, long seed) {
    SplittableRandom random = new SplittableRandom(seed + i);
    int[] tokens = new int[length(random)];
    for (int t = 0; t < tokens.length; t++) {
      tokens[t] = random.nextInt(VOCABULARY);
    }
    return tokens;
  }

  /** Document {@code i}'s length, as {@link #document} draws it, without its tokens. */
  static int length(long i, long seed) {
    return length(new SplittableRandom(seed + i));
  }

  /** All the documents' tokens. */
  static long tokens(long documents, long seed) {
    return LongStream.range(0, documents).parallel().map(i -> length(i, seed)).sum();
  }

  private static int length(SplittableRandom random) {
    double drawn = Math.exp(Math.log(MEDIAN) + SIGMA * random.nextGaussian());
    return (int) Math.max(1, Math.min(MAX_LENGTH, Math.round(drawn)));
  }

  /** The folder's data when its manifest matches and every file it names has its size, or null. */
  private static Written complete(Path dir, long documents, long seed) {
    Path manifestFile = dir.resolve(MANIFEST);
    if (!Files.isRegularFile(manifestFile)) {
      return null;
    }
    Properties manifest = new Properties();
    try (InputStream in = Files.newInputStream(manifestFile)) {
      manifest.load(in);
      if (!GENERATOR.equals(manifest.getProperty("generator"))
          || !Long.toString(seed).equals(manifest.getProperty("seed"))
          || !Long.toString(documents).equals(manifest.getProperty("documents"))) {
        return null;
      }
      int files = Integer.parseInt(manifest.getProperty("files", "-1"));
      List<Path> paths = new ArrayList<>();
      for (Map.Entry<Object, Object> e : manifest.entrySet()) {
        String key = e.getKey().toString();
        if (key.startsWith("file.")) {
          Path path = dir.resolve(key.substring("file.".length()));
          if (!Files.isRegularFile(path)
              || Files.size(path) != Long.parseLong(e.getValue().toString())) {
            return null;
          }
          paths.add(path);
        }
      }
      try (Stream<Path> list = Files.list(dir)) {
        long parquet = list.filter(p -> p.toString().endsWith(".parquet")).count();
        if (paths.size() != files || parquet != files) {
          return null;
        }
      }
      paths.sort(null);
      long tokens = Long.parseLong(manifest.getProperty("tokens", "-1"));
      return new Written(dir, paths, documents, tokens, true);
    } catch (IOException | RuntimeException e) {
      return null; // unreadable or incomplete: written anew
    }
  }

  private static void writeFile(Path path, long first, long last, long seed) {
    try (ParquetWriter<int[]> writer =
        new Builder(new org.apache.hadoop.fs.Path(path.toUri()))
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .withRowGroupSize(ROW_GROUP_BYTES)
            .withConf(new Configuration())
            .build()) {
      for (long i = first; i < last; i++) {
        writer.write(document(i, seed));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + path + ": " + e.getMessage(), e);
    }
  }

  private static final class Builder extends ParquetWriter.Builder<int[], Builder> {
    Builder(org.apache.hadoop.fs.Path path) {
      super(path);
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<int[]> getWriteSupport(Configuration conf) {
      return new DocumentWriter();
    }
  }

  /** Writes one document as a Spark-style list of ints. */
  private static final class DocumentWriter extends WriteSupport<int[]> {
    private RecordConsumer out;

    @Override
    public WriteContext init(Configuration configuration) {
      return new WriteContext(SCHEMA, Map.of());
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.out = recordConsumer;
    }

    @Override
    public void write(int[] tokens) {
      out.startMessage();
      out.startField("tokens", 0);
      out.startGroup();
      out.startField("list", 0);
      for (int token : tokens) {
        out.startGroup();
        out.startField("element", 0);
        out.addInteger(token);
        out.endField("element", 0);
        out.endGroup();
      }
      out.endField("list", 0);
      out.endGroup();
      out.endField("tokens", 0);
      out.endMessage();
    }
  }
}
