package dev.stoker.loader;

/**
 * What a {@link StreamedDataset} is asked to stream: the epoch, and the loader's order and
 * placement, from which the stream derives its order (e.g. row groups shuffled by {@code (seed,
 * epoch)} when {@code shuffle}).
 */
public record StreamRequest(int epoch, boolean shuffle, long seed, int rank, int worldSize) {}
