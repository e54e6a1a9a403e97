/**
 * Per-sample transforms by name: the spec strings that a read's {@code transforms} option holds
 * (built-ins composed with {@code |}, or a user's {@link dev.stoker.loader.SampleTransform} by
 * class name), parsed into one {@link dev.stoker.loader.SampleTransform}. Uses the loader's API
 * types only, never its pipeline.
 */
package dev.stoker.loader.transform;
