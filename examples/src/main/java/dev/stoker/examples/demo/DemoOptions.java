package dev.stoker.examples.demo;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The demo's options, shared by {@code bin/stoker demo} and {@link DemoJob#main}. */
public final class DemoOptions {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help.")
  boolean help;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description =
          "A folder holding the four "
              + "Fashion-MNIST IDX files (.gz or not); default: Debian's dataset-fashion-mnist when it is "
              + "installed, else the files in --cache, else the published files downloaded into it.")
  public Path data;

  @Option(
      names = "--install-dataset",
      description =
          "When the files are neither installed nor "
              + "in --cache, install Debian's dataset-fashion-mnist with apt-get (as root; its output is "
              + "shown, and it is stopped after 5 minutes) rather than download them.")
  public boolean installDataset;

  @Option(
      names = "--cache",
      paramLabel = "DIR",
      description = "Downloads and the Parquet tables " + "(default: ${DEFAULT-VALUE}).")
  public Path cache = Path.of(System.getProperty("user.home"), ".cache", "stoker");

  @Option(names = "--epochs", description = "Epochs (default: ${DEFAULT-VALUE}).")
  public int epochs = 5;

  @Option(
      names = "--ranks",
      description = "Training ranks: tasks of the barrier stage " + "(default: ${DEFAULT-VALUE}).")
  public int ranks = 2;

  @Option(
      names = "--batch-size",
      description = "Rows per batch and rank " + "(default: ${DEFAULT-VALUE}).")
  public int batchSize = 64;

  /** The networks the demo trains. */
  public enum Model {
    /** Two conv layers, pooling, a linear head, in PyTorch (the default). */
    CNN,
    /** A 784-hidden-10 perceptron in plain Java, for machines without PyTorch's natives. */
    MLP
  }

  @Option(
      names = "--model",
      paramLabel = "cnn|mlp",
      converter = ModelConverter.class,
      description =
          "The network: cnn (PyTorch's C++ library; falls back to mlp, saying why, "
              + "where its natives cannot be loaded) or mlp (plain Java) (default: cnn).")
  public Model model = Model.CNN;

  @Option(
      names = "--hidden",
      description =
          "Units of the MLP's hidden layer; 0 for "
              + "softmax regression (default: ${DEFAULT-VALUE}).")
  public int hidden = 128;

  @Option(
      names = "--learning-rate",
      description =
          "SGD learning rate, momentum 0.9 " + "(default: 0.05 for the CNN, 0.01 for the MLP).")
  public Float learningRate;

  @Option(
      names = "--train-rows",
      description =
          "Train on the first N training images only; "
              + "0 for all 60,000 (default: ${DEFAULT-VALUE}).")
  public int trainRows;

  @Option(
      names = "--images",
      description =
          "Train on the images encoded as PNG (a table written once from the raw one) through "
              + "format(\"stoker\")'s transforms: decoded, padded by 4, cropped at random back "
              + "to 28x28, flipped at random and normalized with the training set's mean and std, "
              + "in the loader's workers; the test images stay raw pixels, normalized alike.")
  public boolean images;

  @Option(
      names = "--no-sweep",
      description =
          "Skip the passes that time format(\"stoker\") "
              + "reads with numWorkers 0, 1 and 2 for the plot.")
  public boolean noSweep;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Where the plot and the JSON " + "summary go (default: ${DEFAULT-VALUE}).")
  public Path out = Path.of("stoker-demo");

  @Option(
      names = "--lr-schedule",
      description =
          "constant: the learning rate every epoch; cosine: it falls from the learning rate to 0 "
              + "along half a cosine over the epochs (default: ${DEFAULT-VALUE}).")
  public String lrSchedule = "constant";

  @Option(
      names = "--seed",
      description = "Seed of the weights and the order " + "(default: ${DEFAULT-VALUE}).")
  public long seed = 42;

  /** The learning rate given, or the model's default. */
  public float learningRate() {
    return learningRate != null ? learningRate : model == Model.CNN ? 0.05f : 0.01f;
  }

  /** The learning rate of epoch {@code epoch} (0-based) under {@code --lr-schedule}. */
  public float learningRate(int epoch) {
    return cosine()
        ? (float) (learningRate() * 0.5 * (1 + Math.cos(Math.PI * epoch / epochs)))
        : learningRate();
  }

  /** The learning rate of every epoch, in order. */
  public float[] learningRates() {
    float[] rates = new float[epochs];
    for (int epoch = 0; epoch < epochs; epoch++) {
      rates[epoch] = learningRate(epoch);
    }
    return rates;
  }

  private boolean cosine() {
    return "cosine".equals(lrSchedule);
  }

  /** Reads a {@link Model} case-insensitively. */
  static final class ModelConverter implements picocli.CommandLine.ITypeConverter<Model> {
    @Override
    public Model convert(String value) {
      for (Model model : Model.values()) {
        if (model.name().equalsIgnoreCase(value)) {
          return model;
        }
      }
      throw new picocli.CommandLine.TypeConversionException(
          "'" + value + "' (expected: cnn or mlp)");
    }
  }

  /**
   * Checks every value, and every path the job reads or writes (that {@code --data} holds the
   * files, that {@code --cache} and {@code --out} are folders it can write or make), before the job
   * spends a minute on Spark or training.
   *
   * @throws IllegalArgumentException naming the option, its value and what is allowed
   */
  public void check() {
    checkValues();
    DemoPaths.check(this);
  }

  private void checkValues() {
    positive("--epochs", epochs);
    if (!"constant".equals(lrSchedule) && !"cosine".equals(lrSchedule)) {
      throw new IllegalArgumentException(
          "--lr-schedule: '" + lrSchedule + "' (expected: constant or cosine)");
    }
    positive("--ranks", ranks);
    positive("--batch-size", batchSize);
    if (hidden < 0) {
      throw new IllegalArgumentException("--hidden: " + hidden + " (expected: >= 0)");
    }
    if (trainRows < 0 || trainRows > 0 && trainRows < (long) ranks * batchSize) {
      throw new IllegalArgumentException(
          String.format(
              "--train-rows: %d (expected: 0 for all, "
                  + "or at least --ranks x --batch-size = %d)",
              trainRows, ranks * batchSize));
    }
    if (learningRate != null && !(learningRate > 0)) {
      throw new IllegalArgumentException("--learning-rate: " + learningRate + " (expected: > 0)");
    }
  }

  private static void positive(String name, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
    }
  }
}
