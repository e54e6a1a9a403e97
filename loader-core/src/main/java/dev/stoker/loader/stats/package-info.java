/**
 * Per-channel normalization statistics (count, mean, standard deviation) accumulated in float64
 * with a numerically stable, mergeable update, plus a compact byte form so ranks can exchange
 * partial results. Uses only the JDK; imports nothing from Spark or other Stoker packages.
 */
package dev.stoker.loader.stats;
