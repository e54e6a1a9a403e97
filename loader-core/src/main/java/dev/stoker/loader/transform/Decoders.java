package dev.stoker.loader.transform;

import java.util.function.Supplier;

/**
 * Which {@link ImageDecoder} a {@code decode} step uses. {@code auto}: {@code libjpeg} for JPEGs
 * when Stoker's JNI library loads (it decodes only a random resized crop's rectangle), with {@code
 * opencv} for the other formats when OpenCV's classes and native libraries load, else {@code
 * imageio}; each checked once per JVM. Or the one a spec names ({@code decode(decoder=imageio)}).
 */
final class Decoders {
  static final String AUTO = "auto";
  static final String OPENCV = "opencv";
  static final String IMAGEIO = "imageio";
  static final String LIBJPEG = "libjpeg";

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

  /** Whether the libjpeg decoder can run here. */
  static boolean libjpegAvailable() {
    return NativeJpeg.problem() == null;
  }

  /** The decoder of everything but JPEG for {@code auto} and {@code libjpeg}. */
  private static ImageDecoder others() {
    return openCvAvailable() ? new OpenCvDecoder() : new ImageIoDecoder();
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
        if (libjpegAvailable()) {
          return () -> new LibjpegDecoder(Decoders::others);
        }
        return openCvAvailable() ? OpenCvDecoder::new : ImageIoDecoder::new;
      case LIBJPEG:
        if (!libjpegAvailable()) {
          throw new IllegalArgumentException(
              "decode: decoder=libjpeg but Stoker's libjpeg library does not load: "
                  + NativeJpeg.problem()
                  + " (expected: a Stoker jar built on Linux x86-64 with libjpeg's headers, and "
                  + "libjpeg.so.62 installed, e.g. Debian's libjpeg62-turbo; or decoder=auto)");
        }
        return () -> new LibjpegDecoder(Decoders::others);
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
            "decode: decoder=" + name + " (expected: auto, libjpeg, opencv or imageio)");
    }
  }
}
