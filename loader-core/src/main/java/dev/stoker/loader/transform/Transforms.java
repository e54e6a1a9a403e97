package dev.stoker.loader.transform;

import dev.stoker.loader.SampleTransform;
import java.lang.reflect.InvocationTargetException;

/**
 * Parses a {@code transforms} spec into a {@link SampleTransform}. A spec is either {@code
 * class:NAME}, a user's transform with a public no-argument constructor, found through the thread's
 * context class loader (Spark's, with the job's jars), or the built-ins composed with {@code |}.
 */
public final class Transforms {
  /** The prefix of a spec that names a user's transform class. */
  public static final String CLASS_PREFIX = "class:";

  private Transforms() {}

  /**
   * The transform {@code spec} describes.
   *
   * <p>The built-ins: {@code decode(rgb)|randomResizedCrop(224)|hflip|normalize(imagenet)}, steps
   * joined by {@code |}, arguments positional or {@code key=value}, lists written {@code a:b:c}.
   * See the package documentation for the steps and their arguments.
   *
   * @throws IllegalArgumentException if the spec is blank or malformed, names an unknown step or
   *     class, or a class that is not a {@link SampleTransform}, naming the spec and the remedy
   */
  public static SampleTransform parse(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException(
          "transforms: '" + spec + "' (expected: class:NAME or built-ins joined by |)");
    }
    String text = spec.strip();
    if (text.startsWith(CLASS_PREFIX)) {
      return instantiate(text.substring(CLASS_PREFIX.length()).strip());
    }
    return VisionSpec.parse(text);
  }

  private static SampleTransform instantiate(String name) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = Transforms.class.getClassLoader();
    }
    Class<?> type;
    try {
      type = Class.forName(name, true, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException(
          "transforms: class '"
              + name
              + "' not found: "
              + e
              + " (expected: a SampleTransform on the class path; on Spark, in the job's jars)",
          e);
    }
    if (!SampleTransform.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(
          "transforms: class '"
              + name
              + "' is not a "
              + SampleTransform.class.getName()
              + " (expected: a class that implements it)");
    }
    try {
      return (SampleTransform) type.getConstructor().newInstance();
    } catch (NoSuchMethodException | IllegalAccessException | InstantiationException e) {
      throw new IllegalArgumentException(
          "transforms: class '"
              + name
              + "' cannot be made: "
              + e
              + " (expected: a public class with a public no-argument constructor)",
          e);
    } catch (InvocationTargetException e) {
      throw new IllegalArgumentException(
          "transforms: class '" + name + "' failed in its constructor: " + e.getCause(),
          e.getCause());
    }
  }
}
