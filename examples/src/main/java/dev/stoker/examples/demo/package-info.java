/**
 * The main job, {@link dev.stoker.examples.demo.DemoJob}, and its parts: Fashion-MNIST found or
 * fetched and checked ({@link dev.stoker.examples.demo.FashionMnist},
 * {@link dev.stoker.examples.demo.IdxFile}), kept as Parquet
 * ({@link dev.stoker.examples.demo.ParquetCache}), and a small classifier in plain Java
 * ({@link dev.stoker.examples.demo.Mlp}) trained data-parallel over Spark ranks fed by Stoker.
 * Nothing here imports the command line ({@code dev.stoker.examples.cli}).
 */
package dev.stoker.examples.demo;
