package dev.stoker.loader.transform;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * The JNI library {@code libstokerjpeg} ({@code src/main/native/stoker_jpeg.c}): the system's
 * libjpeg (libjpeg-turbo's {@code libjpeg.so.62} on Debian) decoding only a rectangle of a JPEG.
 * The build compiles it into the jar where the libjpeg headers are installed; here it is copied
 * from the jar to a temporary file and loaded once. Where it is missing or does not load (another
 * platform, no {@code libjpeg.so.62}), {@link #problem()} says why and the decoders fall back.
 */
final class NativeJpeg {
  /** The library's place in the jar for this platform. */
  static final String RESOURCE =
      "native/"
          + System.getProperty("os.name", "").toLowerCase(Locale.ROOT).replace(' ', '_')
          + "-"
          + System.getProperty("os.arch", "")
          + "/libstokerjpeg.so";

  private NativeJpeg() {}

  /** Why the library is not usable, or null when it is. Computed once. */
  private static final class Load {
    static final String PROBLEM = load();

    private static String load() {
      try (InputStream in = NativeJpeg.class.getResourceAsStream(RESOURCE)) {
        if (in == null) {
          return "no " + RESOURCE + " in the jar (built where libjpeg's headers were missing?)";
        }
        Path file = Files.createTempFile("libstokerjpeg", ".so");
        try {
          Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
          System.load(file.toAbsolutePath().toString());
        } finally {
          Files.deleteIfExists(file); // the loaded library stays mapped
        }
        return null;
      } catch (IOException | RuntimeException | LinkageError e) {
        return e.toString();
      }
    }
  }

  /** Why the library cannot be used here, or null when it can. */
  static String problem() {
    return Load.PROBLEM;
  }

  /**
   * Decodes the rectangle {@code [left, left + width) x [top, top + height)} of the JPEG in the
   * first {@code length} bytes of {@code data}, as decoded at {@code 1/scale}, into {@code out}:
   * row after row, {@code channels} interleaved (1 for a grey JPEG, 3 RGB for any other).
   *
   * @throws IllegalArgumentException with libjpeg's message when the data does not decode, or when
   *     the rectangle is outside the image or {@code channels} is not the JPEG's
   */
  static native void decode(
      byte[] data,
      int length,
      int scale,
      int left,
      int top,
      int width,
      int height,
      int channels,
      byte[] out);
}
