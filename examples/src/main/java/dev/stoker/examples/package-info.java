/**
 * Runnable jobs built on Stoker. The {@code bin/stoker} command line lives in
 * {@link dev.stoker.examples.cli}; this module may use every other module, and none uses it.
 */
package dev.stoker.examples;
