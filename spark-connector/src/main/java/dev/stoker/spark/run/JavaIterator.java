package dev.stoker.spark.run;

import java.util.Iterator;

/** A Scala iterator seen as a Java one. */
public final class JavaIterator<T> implements Iterator<T> {
  private final scala.collection.Iterator<T> scala;

  JavaIterator(scala.collection.Iterator<T> scala) {
    this.scala = scala;
  }

  @Override
  public boolean hasNext() {
    return scala.hasNext();
  }

  @Override
  public T next() {
    return scala.next();
  }
}
