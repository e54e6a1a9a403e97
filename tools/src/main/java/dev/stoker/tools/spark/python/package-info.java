/**
 * The Python benchmark's JVM yardstick ({@code python -m stoker.bench}, {@code stoker bench
 * --workload python}): {@link dev.stoker.tools.spark.python.JvmRead} consumes a {@code
 * format("stoker")} read in the JVM, each rank's batches taken as the connector's Python bridge
 * ({@code dev.stoker.spark.python}) takes them for Python, but with no Python at all, so that what
 * Python users get is measured against it. PySpark calls it by name through py4j, so the tools jar
 * goes on the benchmark's Spark class path beside the libraries' jars. Like the bridge it imports
 * the DataSource's scan and the Parquet stack of the connector, not its API, runner, rows path or
 * collective, nor the loader's pipeline; nothing else imports it.
 */
package dev.stoker.tools.spark.python;
