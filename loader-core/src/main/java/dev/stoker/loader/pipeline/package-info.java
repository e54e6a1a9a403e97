/**
 * A loader's pipeline: {@link dev.stoker.loader.pipeline.LoaderPipeline} holds, for the loader's
 * life, the slots' carriers, the worker crew, the transfer thread with its engine, and every thread
 * in {@link dev.stoker.loader.pipeline.LoaderThreads}; each epoch's {@link
 * dev.stoker.loader.pipeline.EpochPipeline} runs a fill stage, where workers write batches through
 * a {@link dev.stoker.loader.pipeline.BatchWriter} and hand them over in order as {@link
 * dev.stoker.loader.pipeline.StagedBatch}es, and for a device a transfer stage after it. It knows
 * slots, batch numbers and stages, not datasets, schemas or sampler order: it imports memory,
 * device, metrics and util of Stoker, and of the root package only the failures it raises ({@link
 * dev.stoker.loader.BatchLoadException}, {@link dev.stoker.loader.LoaderTimeoutException} and their
 * {@link dev.stoker.loader.Stage}); never samplers, stats or Spark.
 */
package dev.stoker.loader.pipeline;
