package dev.stoker.loader.transform;

import java.util.function.Supplier;

/**
 * Which {@link ImageDecoder} a {@code decode} step uses: {@code opencv} when OpenCV's classes and
 * native libraries load on this JVM (checked once), else {@code imageio}; or the one a spec names
 * ({@code decode(decoder=imageio)}).
 */
final class Decoders {
  static final String AUTO = "auto";
  static final String OPENCV = "opencv";
  static final String IMAGEIO = "imageio";

  private Decoders() {}

  /** Why OpenCV is not usable, or null when it is. Computed once. */
  private static final class OpenCvProbe {
    static final String PROBLEM = probe();

    private static String probe() {
      try {
        Class.forName(
            "org.bytedeco.opencv.opencv_core.Mat", false, Decoders.class.getClassLoader());
        OpenCvDecoder.probe();
        return null;
      } catch (Throwable e) { // ClassNotFoundException, NoClassDefFoundError, UnsatisfiedLinkError
        return e.toString();
      }
    }
  }

  /** Whether OpenCV's decoder can run here. */
  static boolean openCvAvailable() {
    return OpenCvProbe.PROBLEM == null;
  }

  /**
   * A factory of per-thread decoders for {@code name}.
   *
   * @throws IllegalArgumentException if {@code name} is unknown, or is {@code opencv} and OpenCV
   *     does not load, saying why and what to add
   */
  static Supplier<ImageDecoder> factory(String name) {
    switch (name) {
      case AUTO:
        return openCvAvailable() ? OpenCvDecoder::new : ImageIoDecoder::new;
      case IMAGEIO:
        return ImageIoDecoder::new;
      case OPENCV:
        if (!openCvAvailable()) {
          throw new IllegalArgumentException(
              "decode: decoder=opencv but OpenCV does not load: "
                  + OpenCvProbe.PROBLEM
                  + " (expected: org.bytedeco:opencv and org.bytedeco:javacpp with this platform's "
                  + "classifier on the class path, or decoder=auto to fall back to ImageIO)");
        }
        return OpenCvDecoder::new;
      default:
        throw new IllegalArgumentException(
            "decode: decoder=" + name + " (expected: auto, opencv or imageio)");
    }
  }
}
