/**
 * Samplers: the order in which dataset indices are visited each epoch ({@link
 * dev.stoker.loader.sampler.SequentialSampler}, or {@link dev.stoker.loader.sampler.RandomSampler}
 * over {@link dev.stoker.loader.sampler.Permutations}), split across distributed ranks ({@link
 * dev.stoker.loader.sampler.DistributedSampler}) and cut into batches ({@link
 * dev.stoker.loader.sampler.BatchSampler}, {@link dev.stoker.loader.sampler.EpochBatches}),
 * following PyTorch's sampler semantics. Every order is a pure function of its configuration and
 * the epoch number, so a retried or resumed epoch sees exactly the same indices. This package
 * imports nothing from other Stoker packages.
 */
package dev.stoker.loader.sampler;
