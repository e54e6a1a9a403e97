/**
 * Stoker's batches in PyTorch's C++ library (the JavaCPP presets, {@code org.bytedeco.pytorch}),
 * without a copy: {@link dev.stoker.examples.torch.TorchBatches} wraps a host batch as a CPU tensor
 * and a device batch as a CUDA tensor whose stream waits on the batch's copy; {@link
 * dev.stoker.examples.torch.TorchNatives} loads the natives safely and sizes the framework's
 * threads; {@link dev.stoker.examples.torch.SmallCnn} is the demo's network. The framework lives
 * here and in the jobs that train with it, never in loader-core or the connector; nothing here
 * imports Spark.
 */
package dev.stoker.examples.torch;
