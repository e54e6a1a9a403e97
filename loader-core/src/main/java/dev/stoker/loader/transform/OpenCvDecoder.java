package dev.stoker.loader.transform;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_RGB;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_GRAYSCALE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_IGNORE_ORIENTATION;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_2;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_4;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_GRAYSCALE_8;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * OpenCV's {@code imdecode} through JavaCPP: libjpeg-turbo (SIMD) and libpng, JPEG decoded at 1/2,
 * 1/4, 1/8 scale in the DCT. Colours come out RGB directly ({@code IMREAD_COLOR_RGB}), the EXIF
 * orientation is ignored as PIL ignores it. Only loaded when {@link Decoders} finds OpenCV's
 * classes and native libraries; every Mat is closed before {@link #decode} returns. The encoded
 * bytes pass through one native buffer per thread that grows as needed and is freed with the
 * thread's decoder.
 */
final class OpenCvDecoder implements ImageDecoder {
  private BytePointer input = new BytePointer(64 * 1024);

  /** Loads OpenCV's native libraries; throws if they are missing or do not load. */
  static void probe() {
    try (Mat empty = new Mat()) {
      if (!empty.empty()) {
        throw new IllegalStateException("OpenCV: a new Mat is not empty");
      }
    }
    org.bytedeco.javacpp.Loader.load(org.bytedeco.opencv.global.opencv_imgcodecs.class);
  }

  @Override
  public String name() {
    return "opencv";
  }

  @Override
  public boolean reducesJpeg() {
    return true;
  }

  @Override
  public void decode(byte[] data, int length, ImageHeader header, int scale, Image out) {
    if (input.capacity() < length) {
      input.close();
      input = new BytePointer(Math.max(length, input.capacity() * 2));
    }
    input.position(0).put(data, 0, length);
    int flags = (header.grey() ? IMREAD_GRAYSCALE : IMREAD_COLOR_RGB) | IMREAD_IGNORE_ORIENTATION;
    flags |=
        switch (scale) {
          case 1 -> 0;
          case 2 -> IMREAD_REDUCED_GRAYSCALE_2;
          case 4 -> IMREAD_REDUCED_GRAYSCALE_4;
          case 8 -> IMREAD_REDUCED_GRAYSCALE_8;
          default ->
              throw new IllegalArgumentException("scale " + scale + " (expected: 1, 2, 4, 8)");
        };
    try (Mat encoded = new Mat(1, length, CV_8UC1, input);
        Mat decoded = imdecode(encoded, flags)) {
      if (decoded == null || decoded.empty()) {
        throw new IllegalArgumentException("OpenCV could not decode it");
      }
      int channels = decoded.channels();
      if (decoded.depth() != 0 || (channels != 1 && channels != 3) || !decoded.isContinuous()) {
        throw new IllegalArgumentException(
            "OpenCV decoded it to depth " + decoded.depth() + " with " + channels + " channels");
      }
      out.reset(decoded.cols(), decoded.rows(), channels);
      decoded.data().get(out.pixels, 0, out.bytes());
    }
  }
}
