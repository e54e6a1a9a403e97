/**
 * The loader's public face: {@link dev.stoker.loader.DataLoader} with its options, each defined
 * once in {@link dev.stoker.loader.LoaderOptionTable} (whose names {@link
 * dev.stoker.loader.OptionNames} lists) and held typed by {@link dev.stoker.loader.LoaderOptions}
 * with its {@link dev.stoker.loader.Placement}, and in travelling form by {@link
 * dev.stoker.loader.LoaderConfig}; the data model ({@link dev.stoker.loader.Schema}, {@link
 * dev.stoker.loader.Field}, {@link dev.stoker.loader.DType}, {@link
 * dev.stoker.loader.BatchLayout}), the two kinds of source ({@link dev.stoker.loader.MapDataset},
 * {@link dev.stoker.loader.StreamedDataset}) with the writers they fill batch rows through, and the
 * {@link dev.stoker.loader.Batch} the consumer gets. It drives the samplers and the pipeline and
 * hands out memory, device and metrics types. It must not import stats, which is built on it, nor
 * Spark, Hadoop or JCuda.
 */
package dev.stoker.loader;
