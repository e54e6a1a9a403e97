/**
 * The bridge to PyTorch in Python: {@link dev.stoker.spark.python.PythonRanks} turns a {@code
 * format("stoker")} read into one small handle row per rank, and in that rank's task a {@code
 * RankPump} runs the rank's loader with its slots in a shared-memory file that the Python package
 * maps (no row of the data passes through Spark, Arrow or a socket): a {@code SlotChannel} in the
 * file posts the batches ahead into a ring, and a {@code Doorbell} beside it wakes whichever side
 * sleeps with a single byte. Imports the DataSource's scan and the Parquet stack; nothing in the
 * connector imports it.
 */
package dev.stoker.spark.python;
