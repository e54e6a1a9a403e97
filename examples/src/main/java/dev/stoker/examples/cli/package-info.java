/**
 * The {@code bin/stoker} command line: {@link dev.stoker.examples.cli.StokerCli} (picocli) and its
 * subcommands: {@code bench}, which runs the tools' benchmarks, with the table, JSON and chart it
 * writes, and {@code demo}, which runs the main job on an embedded Spark. It drives the public APIs
 * only, and keeps AWT headless.
 */
package dev.stoker.examples.cli;
