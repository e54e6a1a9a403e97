package dev.stoker.loader;

import java.io.Serializable;

/**
 * A per-sample transform that runs on the loader's workers ({@code numWorkers} threads), after a
 * row is read and before its batch slot is filled: decoding and augmenting images, tokenizing,
 * anything that turns a dataset's row into the batch's fixed shapes. The batch's schema is {@link
 * #outputSchema} of the dataset's; a dataset with {@linkplain Field#variable variable-length}
 * fields needs a transform whose output has none.
 *
 * <p>Workers call {@link #apply} from several threads at once, so an implementation keeps no
 * mutable state of its own (per-thread scratch memory in a {@link ThreadLocal} is fine). Every
 * random choice must come from {@code random}: then the batches are the same for any number of
 * workers, after a retry and after a resume. It is serializable so that a Spark job can ship it to
 * the executors; the built-ins are named in a spec string instead ({@code
 * dev.stoker.loader.transform.Transforms}).
 */
public interface SampleTransform extends Serializable {
  /**
   * The fields this transform writes, given the dataset's. Called once per loader, before any
   * sample.
   *
   * @throws IllegalArgumentException if the input lacks a field the transform needs or has one of
   *     another type, naming the field, what it is and what is expected
   */
  Schema outputSchema(Schema input);

  /**
   * Reads one sample from {@code in} and writes every field of {@link #outputSchema} into {@code
   * out}. An exception makes the sample bad: the batch fails, or with {@code onBadSample=skip} the
   * sample is skipped and counted.
   */
  void apply(SampleInput in, SampleWriter out, SampleRandom random) throws Exception;
}
