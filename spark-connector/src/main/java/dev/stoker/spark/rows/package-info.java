/**
 * From Spark's rows to shard blocks without {@code Row} objects: the declared tensor and scalar
 * columns are checked against the DataFrame's schema on the driver, and each executor copies
 * Spark's internal rows field by field, arrays in bulk, into block columns. Imports Spark SQL's
 * catalyst row classes and, of the connector, the shard package alone: not the runner, the API, the
 * Parquet stack or the DataSource.
 */
package dev.stoker.spark.rows;
