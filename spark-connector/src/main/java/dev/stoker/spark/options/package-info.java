/**
 * The one registry of Stoker's options, for the loader, the DataSource and the runner: each
 * option's name, type, default and layers, and how a reader resolves them (an option it was given
 * beats the session's {@code spark.stoker.<name>} setting, which beats the default). Imports
 * loader-core and Spark's session only; every other connector package may use it.
 */
package dev.stoker.spark.options;
