/**
 * The loader's public face: {@link dev.stoker.loader.DataLoader} with its
 * {@link dev.stoker.loader.LoaderOptions}, the data model ({@link dev.stoker.loader.Schema},
 * {@link dev.stoker.loader.Field}, {@link dev.stoker.loader.DType}), datasets that write samples
 * straight into batch rows ({@link dev.stoker.loader.MapDataset}) and the
 * {@link dev.stoker.loader.Batch} the consumer gets. No Spark, no Hadoop, no JCuda here.
 */
package dev.stoker.loader;
