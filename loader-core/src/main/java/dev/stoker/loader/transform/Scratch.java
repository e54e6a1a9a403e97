package dev.stoker.loader.transform;

import java.util.function.Supplier;

/**
 * The memory one worker thread reuses for every sample: its decoder, images, resampler and output
 * rows.
 */
final class Scratch {
  final ImageDecoder decoder;
  final Resampler resampler = new Resampler();
  final OutputRows outputRows = new OutputRows();
  Image decoded = new Image();
  Image spare = new Image();
  byte[] planar = new byte[0];

  Scratch(Supplier<ImageDecoder> decoders) {
    this.decoder = decoders.get();
  }

  byte[] planar(int bytes) {
    if (planar.length < bytes) {
      planar = new byte[bytes];
    }
    return planar;
  }
}
