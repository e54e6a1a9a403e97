/**
 * The one table of Stoker's options on Spark ({@link dev.stoker.spark.options.SparkOptionTable}:
 * the loader's options of {@code dev.stoker.loader.LoaderOptionTable} and the DataSource's and the
 * runner's own, each typed, with its default, one line of documentation and the layers that read
 * it, and the Spark settings of the collective and the Python bridge, which are no option), how a
 * reader resolves them ({@link dev.stoker.spark.options.OptionReader}: an option it was given beats
 * the session's {@code spark.stoker.<name>} setting, which beats the default), and the reference
 * page generated from the table, {@code docs/configuration.md} ({@link
 * dev.stoker.spark.options.ConfigurationPage}). Imports loader-core and Spark's session only; every
 * other connector package may use it.
 */
package dev.stoker.spark.options;
