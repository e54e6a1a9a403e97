package dev.stoker.loader.transform;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.stream.MemoryCacheImageInputStream;

/**
 * Times the JPEG decoders on a folder of JPEGs: median microseconds per image over rounds, each
 * round decoding every file once. Not a test; run by hand:
 *
 * <pre>
 * java -cp target/classes:target/test-classes:CLASSPATH[:/usr/share/java/turbojpeg.jar] \
 *   dev.stoker.loader.transform.DecoderTiming FOLDER [ROUNDS]
 * </pre>
 *
 * Candidates: the JDK's ImageIO, TwelveMonkeys' ImageIO JPEG plugin, OpenCV (full, 1/2, 1/4), and
 * Debian's TurboJPEG binding (full, 1/2, 1/4) when its jar is on the class path.
 */
public final class DecoderTiming {
  private DecoderTiming() {}

  interface Decode {
    void run(byte[] data) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    List<byte[]> files = new ArrayList<>();
    try (var paths = Files.list(Path.of(args[0]))) {
      for (Path p : paths.sorted().toList()) {
        files.add(Files.readAllBytes(p));
      }
    }
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    System.out.printf("%d JPEGs, %d rounds, median us per image%n", files.size(), rounds);
    ImageReader jdk = reader("com.sun.imageio.plugins.jpeg.JPEGImageReader");
    ImageReader twelve = reader("com.twelvemonkeys.imageio.plugins.jpeg.JPEGImageReader");
    time("imageio (JDK)", files, rounds, d -> read(jdk, d));
    if (twelve != null) {
      time("twelvemonkeys 3.14.0", files, rounds, d -> read(twelve, d));
    }
    if (Decoders.openCvAvailable()) {
      for (int scale : new int[] {1, 2, 4}) {
        OpenCvDecoder cv = new OpenCvDecoder();
        Image out = new Image();
        time(
            "opencv 1/" + scale,
            files,
            rounds,
            d -> {
              cv.decode(d, d.length, ImageHeader.read(d, d.length), scale, out);
            });
      }
    }
    timeTurbo(files, rounds);
  }

  private static ImageReader reader(String className) {
    Iterator<ImageReader> readers = ImageIO.getImageReadersByFormatName("jpeg");
    while (readers.hasNext()) {
      ImageReader r = readers.next();
      if (r.getClass().getName().equals(className)) {
        return r;
      }
    }
    return null;
  }

  private static void read(ImageReader reader, byte[] data) throws Exception {
    try (MemoryCacheImageInputStream in =
        new MemoryCacheImageInputStream(new ByteArrayInputStream(data))) {
      reader.setInput(in, true, true);
      BufferedImage image = reader.read(0);
      if (image.getWidth() == 0) {
        throw new IllegalStateException();
      }
    } finally {
      reader.setInput(null);
    }
  }

  /** TurboJPEG's own Java binding, through reflection: only when its jar is on the class path. */
  private static void timeTurbo(List<byte[]> files, int rounds) throws Exception {
    Class<?> decompressor;
    try {
      decompressor = Class.forName("org.libjpegturbo.turbojpeg.TJDecompressor");
    } catch (ClassNotFoundException | LinkageError e) {
      System.out.println("turbojpeg: not usable here: " + e);
      return;
    }
    Class<?> factor = Class.forName("org.libjpegturbo.turbojpeg.TJScalingFactor");
    Object tj = decompressor.getConstructor().newInstance();
    Method setSource = decompressor.getMethod("setSourceImage", byte[].class, int.class);
    Method width = decompressor.getMethod("getWidth");
    Method height = decompressor.getMethod("getHeight");
    Method decompress =
        decompressor.getMethod(
            "decompress",
            byte[].class,
            int.class,
            int.class,
            int.class,
            int.class,
            int.class,
            int.class,
            int.class);
    Method scaled = factor.getMethod("getScaled", int.class);
    byte[] out = new byte[4096 * 4096 * 3];
    for (int scale : new int[] {1, 2, 4}) {
      Object f = factor.getConstructor(int.class, int.class).newInstance(1, scale);
      time(
          "turbojpeg (Debian) 1/" + scale,
          files,
          rounds,
          d -> {
            setSource.invoke(tj, d, d.length);
            int w = (int) scaled.invoke(f, (int) width.invoke(tj));
            int h = (int) scaled.invoke(f, (int) height.invoke(tj));
            decompress.invoke(tj, out, 0, 0, w, w * 3, h, 0 /* PF_RGB */, 0);
          });
    }
  }

  private static void time(String name, List<byte[]> files, int rounds, Decode decode)
      throws Exception {
    for (int warm = 0; warm < 5; warm++) {
      for (byte[] f : files) {
        decode.run(f);
      }
    }
    double[] perImage = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      long start = System.nanoTime();
      for (byte[] f : files) {
        decode.run(f);
      }
      perImage[r] = (System.nanoTime() - start) / 1e3 / files.size();
    }
    Arrays.sort(perImage);
    System.out.printf(
        "%-28s %8.0f us (min %.0f, max %.0f)%n",
        name, perImage[rounds / 2], perImage[0], perImage[rounds - 1]);
  }
}
