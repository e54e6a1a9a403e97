/**
 * The DataSource read API as a user meets it: Parquet read with {@code format("stoker")} into one
 * partition of equal batches per rank, fed to training through the runner ({@link
 * dev.stoker.examples.datasource.TrainFromParquet}). Uses the demo's model only, never the command
 * line.
 */
package dev.stoker.examples.datasource;
