/**
 * Runnable jobs built on Stoker. The {@code bin/stoker} command line lives in {@link
 * dev.stoker.examples.cli}; this module may use every other module, and none uses it. Jobs use the
 * public APIs as users do: the connector's root package, and the loader's root package with the
 * memory, device, metrics and stats packages; only the command line runs the tools' benchmarks
 * ({@code dev.stoker.tools.bench}, {@code dev.stoker.tools.spark}).
 */
package dev.stoker.examples;
