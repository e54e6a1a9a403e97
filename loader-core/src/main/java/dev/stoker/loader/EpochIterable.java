package dev.stoker.loader;

/** The batches of one epoch; each {@link #iterator()} runs the epoch anew, in the same order. */
@FunctionalInterface
public interface EpochIterable extends Iterable<Batch> {
  @Override
  BatchIterator iterator();
}
