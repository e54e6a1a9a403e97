/**
 * Stoker's one Parquet stack, shared by the DataSource and the runner: listing and footers (read in
 * parallel), or a Delta or Iceberg snapshot's data files with the rows its deletes kept ({@link
 * dev.stoker.spark.parquet.TableSnapshot}, {@link dev.stoker.spark.parquet.KeptRows}), the answer
 * to "can this column load as this dtype, and if not, why", the planner that cuts row groups into
 * one exact row range per rank (dealing them a few at a time into each shuffle window, {@link
 * dev.stoker.spark.parquet.GroupStripes}; again on the ranks for each epoch, {@link
 * dev.stoker.spark.parquet.EpochPlanner}), and the reading of a rank's runs (Stoker's page decoder,
 * whose every size is checked against what the page can hold, or Spark's vectorized reader per run
 * for other encodings) into shuffle windows that feed a loader's streamed source. Imports Spark,
 * Parquet and Hadoop, loader-core and the options registry; must not import the DataSource classes,
 * the runner or the API, which consume it, nor any other package of the connector.
 */
package dev.stoker.spark.parquet;
