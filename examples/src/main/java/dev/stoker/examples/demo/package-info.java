/**
 * The main job, {@link dev.stoker.examples.demo.DemoJob}, and its parts: Fashion-MNIST found or
 * fetched and checked ({@link dev.stoker.examples.demo.FashionMnist}, {@link
 * dev.stoker.examples.demo.IdxFile}), kept as Parquet ({@link
 * dev.stoker.examples.demo.ParquetCache}), and a network trained data-parallel over Spark ranks fed
 * by Stoker: the CNN in PyTorch ({@link dev.stoker.examples.demo.DataParallelStep} over the adapter
 * of {@code dev.stoker.examples.torch}), or a small classifier in plain Java ({@link
 * dev.stoker.examples.demo.Mlp}) where PyTorch's natives cannot be loaded. Nothing here imports the
 * command line ({@code dev.stoker.examples.cli}).
 */
package dev.stoker.examples.demo;
