/**
 * A fast all-reduce for the ranks of a barrier stage: Spark's barrier {@code allGather} costs
 * about a second a call, too slow for one gradient exchange per step. The ranks meet once through
 * the barrier context, then talk over plain TCP in a star around rank 0, which sums in rank order
 * so that every rank gets the same bits. Imports nothing from Spark or the rest of the connector:
 * the caller hands it the rendezvous and the cancellation check.
 */
package dev.stoker.spark.collective;
