/**
 * A fast all-reduce for the ranks of a barrier stage: Spark's barrier {@code allGather} sends
 * strings through the driver, a millisecond or more a call even when woken early, and carries no
 * arrays of numbers; gradients are exchanged every step. The ranks meet once through
 * the barrier context, then talk over plain TCP in a star around rank 0, which sums in rank order
 * so that every rank gets the same bits. Imports nothing from Spark or the rest of the connector:
 * the caller hands it the rendezvous and the cancellation check.
 */
package dev.stoker.spark.collective;
