/**
 * How rows reach their rank with equal batches on every rank: counting input partitions,
 * numbering rows deterministically, cutting them into blocks per rank for one shuffle, deciding
 * when the input can be used as is, and sizing each rank's share. Imports Spark, the rows and
 * shard packages; must not import the API package.
 */
package dev.stoker.spark.run.balance;
