/**
 * The connector's public API and its data model: {@link dev.stoker.spark.StokerSpark} takes a
 * DataFrame, its declared tensor and scalar columns, the loader's options and the number of ranks,
 * and runs a {@link dev.stoker.spark.RankFunction} on every rank with its {@link
 * dev.stoker.spark.RankContext} and one loader; each rank's result and the {@link
 * dev.stoker.spark.LoadReport} come back. Nothing here runs a stage or reads a file: the builder
 * hands the run to {@code dev.stoker.spark.run}, which implements the rank context. Every top-level
 * class here is public, no public signature names a type of the packages below it, none uses
 * Spark's execution or catalyst classes or JCuda, and only {@code StokerSpark} imports the runner.
 * Of the connector, only {@code run} imports this package.
 */
package dev.stoker.spark;
