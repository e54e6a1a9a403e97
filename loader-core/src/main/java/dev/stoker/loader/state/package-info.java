/**
 * A loader's position as a small value: {@link dev.stoker.loader.state.LoaderState} (seed, epoch,
 * the rows of the epoch's order consumed, the world size and batch size it was taken at, and an
 * {@link dev.stoker.loader.state.InputFingerprint} of the input), printed as a short versioned,
 * checksummed string and parsed back. Pure values and their checks: this package imports nothing
 * from other Stoker packages.
 */
package dev.stoker.loader.state;
