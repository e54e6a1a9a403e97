/**
 * Per-channel normalization statistics (count, mean, standard deviation) accumulated in float64
 * with a numerically stable, mergeable update, plus a compact byte form so ranks can exchange
 * partial results. {@link dev.stoker.loader.stats.ChannelStats} uses only the JDK;
 * {@link dev.stoker.loader.stats.FieldStats} reads a field through a loader. Nothing from Spark.
 */
package dev.stoker.loader.stats;
