/**
 * The main job's parts: Fashion-MNIST found or fetched and checked
 * ({@link dev.stoker.examples.demo.FashionMnist}, {@link dev.stoker.examples.demo.IdxFile}) and a
 * small classifier trained in plain Java ({@link dev.stoker.examples.demo.Mlp}).
 */
package dev.stoker.examples.demo;
