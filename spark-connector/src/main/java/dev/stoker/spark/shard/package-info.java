/**
 * A rank's shard cache: rows arrive in blocks of columns, are written once to column files on a
 * local disk within a byte budget, and are read back memory-mapped as the rank's indexed dataset.
 * Knows loader-core's data model only; must not import Spark, Scala, Hadoop or any other package of
 * the connector.
 */
package dev.stoker.spark.shard;
