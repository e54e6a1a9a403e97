/**
 * The loading pipeline of one epoch: worker threads that fill host slots in parallel
 * ({@link dev.stoker.loader.pipeline.FillStage}), the ordered, bounded hand-over to the consumer,
 * and the {@link dev.stoker.loader.pipeline.TransferStage} that copies batches to a device. It
 * knows slots, batch numbers and a {@link dev.stoker.loader.pipeline.SlotFiller}, not datasets or
 * schemas; it imports memory, device and metrics, never Spark.
 */
package dev.stoker.loader.pipeline;
