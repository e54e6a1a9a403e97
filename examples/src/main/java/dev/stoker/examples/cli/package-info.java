/**
 * The {@code bin/stoker} command line: {@link dev.stoker.examples.cli.StokerCli} (picocli) and its
 * {@code bench} subcommand, with the table, JSON and chart it writes. It drives loader-core's
 * public API only, and keeps AWT headless.
 */
package dev.stoker.examples.cli;
