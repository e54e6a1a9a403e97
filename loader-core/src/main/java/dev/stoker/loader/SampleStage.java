package dev.stoker.loader;

import java.util.Objects;

/**
 * A loader's {@link SampleTransform} with what running it takes: the dataset's schema (the
 * transform's input), the seed its random streams are keyed by, and each loading thread's {@link
 * SampleInput}.
 */
final class SampleStage {
  private final SampleTransform transform;
  private final Schema input;
  private final Schema output;
  private final long seed;
  private final ThreadLocal<SampleInput> inputs;

  private SampleStage(SampleTransform transform, Schema input, Schema output, long seed) {
    this.transform = transform;
    this.input = input;
    this.output = output;
    this.seed = seed;
    this.inputs = ThreadLocal.withInitial(() -> new SampleInput(input));
  }

  /**
   * The stage of {@code transform} over a dataset of schema {@code input}, or null without a
   * transform; the batch schema must then have fixed shapes only.
   *
   * @throws IllegalArgumentException if a variable-length field would reach a batch, naming it and
   *     the remedy, or the transform refuses the input
   */
  static SampleStage of(SampleTransform transform, Schema input, long seed) {
    if (transform == null) {
      checkFixed(input, "the dataset has");
      return null;
    }
    Schema output =
        Objects.requireNonNull(
            transform.outputSchema(input), "the transform's outputSchema(" + input + ")");
    checkFixed(output, "the transform " + transform + " writes");
    return new SampleStage(transform, input, output, seed);
  }

  private static void checkFixed(Schema schema, String whose) {
    Field variable = schema.firstVariable();
    if (variable != null) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s' %s%s: %s a variable-length field, and a batch holds fixed shapes only "
                  + "(expected: a transform that gives it a fixed shape, e.g. transforms="
                  + "\"decode(rgb)|resize(256)|centerCrop(224)|normalize\" for encoded images, or "
                  + "a schema without it)",
              variable.name(), variable.dtype().label(), variable.shapeText(), whose));
    }
  }

  /** The batch's fields: the transform's output. */
  Schema output() {
    return output;
  }

  /** The dataset's fields: the transform's input. */
  Schema input() {
    return input;
  }

  /** This thread's input record. */
  SampleInput sampleInput() {
    return inputs.get();
  }

  /** Runs the transform on the sample in {@code in}, writing into {@code out}. */
  void apply(SampleInput in, SampleWriter out) throws Exception {
    transform.apply(in, out, SampleRandom.of(seed, in.epoch(), in.key()));
  }

  @Override
  public String toString() {
    return String.valueOf(transform);
  }
}
