/**
 * What the connector's tests run on: an embedded Spark, in this JVM or with executor JVMs of its
 * own (local-cluster), optionally with fake GPUs; and a real S3-compatible server on the loopback.
 */
package dev.stoker.spark.testing;
