/**
 * Finds out, at run time and without its jars, whether NVIDIA's RAPIDS Accelerator for Apache Spark
 * is active for a session. Imports Spark only; must not import the other packages.
 */
package dev.stoker.spark.rapids;
