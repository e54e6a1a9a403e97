/**
 * How rows reach their rank with equal batches on every rank: counting input partitions, numbering
 * rows deterministically, cutting them into blocks per rank for one shuffle, deciding when the
 * input can be used as is, and sizing each rank's share. Imports Spark and, of the connector, the
 * rows and shard packages alone: not the API or the runner that calls it.
 */
package dev.stoker.spark.run.balance;
