/**
 * The Spark benchmarks behind {@code stoker bench}: {@code --workload spark} (the same Parquet
 * DataFrame into rank loaders through Stoker and into batches through Row objects, with the time to
 * the first batch), {@code --workload spark-source} ({@code format("stoker")} against Spark's own
 * Parquet read) and {@code --workload spark-device} ({@code format("stoker")} through the runner
 * into loaders with a device, against the read alone), {@code --workload resume} (the time to the
 * first batch when resuming at 0, 50 and 90 % of an epoch, indexed and Parquet), {@code --workload
 * tokens} (documents of token ids packed into rows by {@code format("stoker")} with {@code pack},
 * against a PyTorch {@code IterableDataset} packing them with PyArrow and NumPy) and {@code
 * --workload allreduce} (the ranks' all-reduce by the star and by the ring, ranks as threads, or as
 * processes on separate hosts with {@code AllReduceHosts}). Uses the connector's public API ({@code
 * dev.stoker.spark}), the DataSource's scan, the collective and Spark, never the runner's internals
 * ({@code dev.stoker.spark.run}) or the loader's pipeline. The libraries do not import it; the
 * command line's bench (in the examples) runs it.
 */
package dev.stoker.tools.spark;
