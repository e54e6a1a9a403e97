package dev.stoker.loader.transform;

import java.io.Serializable;
import java.util.random.RandomGenerator;

/**
 * One geometric step of a vision spec, after {@code decode} and before the output step. Immutable;
 * the per-thread memory comes in {@link Scratch}.
 */
interface ImageOp extends Serializable {
  /** The step as a spec names it, with its arguments. */
  String text();

  /**
   * The {@code {height, width}} this step makes of an image of {@code size}, or null when it
   * depends on the image (a {@code size} of null is an image of any size).
   */
  int[] outputSize(int[] size);

  /**
   * Applies the step to {@code in}: the result is {@code in} itself or {@code spare}, filled.
   *
   * @throws IllegalArgumentException if the image does not suit the step (too small for a crop)
   */
  Image apply(Image in, Image spare, RandomGenerator random, Scratch scratch);
}
