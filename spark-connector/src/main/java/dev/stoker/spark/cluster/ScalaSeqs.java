package dev.stoker.spark.cluster;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the few Scala sequences Stoker needs from Spark (an RDD's dependencies, accumulator
 * updates) without naming their type, which is {@code scala.collection.Seq} on Scala 2.12 and
 * {@code scala.collection.immutable.Seq} on 2.13: through reflection and the {@code
 * scala.collection.Iterable} both extend, so that one build runs on both.
 */
public final class ScalaSeqs {
  private ScalaSeqs() {}

  /** The elements of the sequence {@code owner.method()} returns. */
  public static List<Object> call(Object owner, String method) {
    try {
      Method getter = owner.getClass().getMethod(method);
      return elements(getter.invoke(owner));
    } catch (InvocationTargetException e) {
      throw new IllegalStateException(
          owner.getClass().getName() + "." + method + "() failed: " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          owner.getClass().getName()
              + "."
              + method
              + "() is not "
              + "there: "
              + e
              + " (expected: a Spark 3.5 or 4 class)",
          e);
    }
  }

  /** The elements of a Scala collection. */
  public static List<Object> elements(Object iterable) {
    List<Object> list = new ArrayList<>();
    scala.collection.Iterator<?> it = ((scala.collection.Iterable<?>) iterable).iterator();
    while (it.hasNext()) {
      list.add(it.next());
    }
    return list;
  }
}
