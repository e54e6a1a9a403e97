package dev.stoker.spark.collective;

/**
 * How the ranks meet once before they connect: every rank sends a message and receives every
 * rank's, index = rank, as Spark's {@code BarrierTaskContext.allGather} does.
 */
@FunctionalInterface
public interface Rendezvous {
  String[] allGather(String message);
}
