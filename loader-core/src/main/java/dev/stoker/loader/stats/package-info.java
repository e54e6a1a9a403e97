/**
 * Per-channel normalization statistics (count, mean, standard deviation) accumulated in float64
 * with a numerically stable, mergeable update ({@link dev.stoker.loader.stats.ChannelStats}), plus
 * a compact byte form so ranks can exchange partial results. {@link
 * dev.stoker.loader.stats.FieldStats} reads a field through a {@link dev.stoker.loader.DataLoader},
 * as any user does. It uses the loader's public API only and never imports the pipeline; the loader
 * does not import stats.
 */
package dev.stoker.loader.stats;
