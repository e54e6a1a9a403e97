/**
 * The DataSource V2 {@code format("stoker")}, and only its classes: they mirror Spark's read
 * interfaces one to one ({@code StokerSource} → {@code StokerTable} → {@code StokerScanBuilder} →
 * {@code StokerScan} → {@code StokerBatch} → {@code StokerColumnarReaderFactory} → {@code
 * RankReader}), and hand each rank's batches to Spark as column vectors over the loader's batch
 * slots. Listing, planning and reading are {@code dev.stoker.spark.parquet}'s. Must not import the
 * runner or the API, which consume it.
 */
package dev.stoker.spark.source;
