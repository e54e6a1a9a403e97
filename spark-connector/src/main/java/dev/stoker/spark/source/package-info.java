/**
 * The DataSource V2 {@code format("stoker")}: Parquet files planned from their footers into one
 * exact row range per rank, decoded column by column (by Stoker's page reader and decoder,
 * which reuse their buffers from page to page, or Spark's vectorized reader for other encodings)
 * into shuffle windows that feed the loader's streamed source, and handed to Spark as column
 * vectors over the loader's batch slots.
 * The classes mirror Spark's read interfaces one to one ({@code StokerSource} → {@code
 * StokerTable} → {@code StokerScanBuilder} → {@code StokerScan} → {@code StokerBatch} → {@code
 * StokerColumnarReaderFactory} → {@code RankReader}). It must not import the training runner of
 * {@code dev.stoker.spark}, which consumes it.
 */
package dev.stoker.spark.source;
