package dev.stoker.loader.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.SplittableRandom;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.stream.MemoryCacheImageOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The libjpeg decoder: a rectangle decodes to exactly the pixels a whole decode has there, for
 * every chroma subsampling, grey, progressive, odd sizes and reduced scales; whole decodes equal
 * PIL's; through a transform it gives the samples the whole-image decoders give; bad data and bad
 * arguments are exceptions.
 */
class LibjpegDecoderTest {
  @BeforeAll
  static void libraryLoads() {
    if (NativeJpeg.class.getResource(NativeJpeg.RESOURCE) != null) {
      assertThat(NativeJpeg.problem()).as("the libjpeg JNI library built here loads").isNull();
    }
    assumeThat(Decoders.libjpegAvailable()).as("libjpeg decoder: " + NativeJpeg.problem()).isTrue();
  }

  private static ImageDecoder libjpeg() {
    return Decoders.factory(Decoders.LIBJPEG).get();
  }

  /** A photo-like image of {@code width x height}: the golden photo tiled and blended. */
  private static BufferedImage picture(int width, int height, boolean grey) throws Exception {
    BufferedImage photo =
        ImageIO.read(new java.io.ByteArrayInputStream(Goldens.bytes("photo.png")));
    BufferedImage out =
        new BufferedImage(
            width, height, grey ? BufferedImage.TYPE_BYTE_GRAY : BufferedImage.TYPE_3BYTE_BGR);
    for (int y = 0; y < height; y++) {
      for (int x = 0; x < width; x++) {
        int rgb = photo.getRGB((x * 7 / 5) % photo.getWidth(), (y * 3 / 2) % photo.getHeight());
        out.setRGB(x, y, rgb ^ ((x * y) & 0x0f0f0f));
      }
    }
    return out;
  }

  /** The image as a JPEG of quality 0.9 with luma sampled {@code h x v}, progressive or not. */
  private static byte[] jpeg(BufferedImage image, int h, int v, boolean progressive)
      throws Exception {
    ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
    ImageWriteParam param = writer.getDefaultWriteParam();
    param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
    param.setCompressionQuality(0.9f);
    if (progressive) {
      param.setProgressiveMode(ImageWriteParam.MODE_DEFAULT);
    }
    IIOMetadata metadata =
        writer.getDefaultImageMetadata(new javax.imageio.ImageTypeSpecifier(image), param);
    Element tree = (Element) metadata.getAsTree("javax_imageio_jpeg_image_1.0");
    NodeList components = tree.getElementsByTagName("componentSpec");
    if (components.getLength() > 1) {
      Element luma = (Element) components.item(0);
      luma.setAttribute("HsamplingFactor", Integer.toString(h));
      luma.setAttribute("VsamplingFactor", Integer.toString(v));
    }
    metadata.setFromTree("javax_imageio_jpeg_image_1.0", tree);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (MemoryCacheImageOutputStream out = new MemoryCacheImageOutputStream(bytes)) {
      writer.setOutput(out);
      writer.write(null, new IIOImage(image, null, metadata), param);
    } finally {
      writer.dispose();
    }
    return bytes.toByteArray();
  }

  private static Image whole(ImageDecoder d, byte[] data, int scale) throws Exception {
    ImageHeader header = ImageHeader.read(data, data.length);
    Image image = new Image();
    d.decode(data, data.length, header, scale, image);
    return image;
  }

  private static byte[] cut(Image image, CropBox box) {
    int c = image.channels;
    byte[] out = new byte[box.width() * box.height() * c];
    for (int y = 0; y < box.height(); y++) {
      System.arraycopy(
          image.pixels,
          ((box.top() + y) * image.width + box.left()) * c,
          out,
          y * box.width() * c,
          box.width() * c);
    }
    return out;
  }

  @Test
  void shouldDecodeEveryRectangleAsTheWholeImageHasIt() throws Exception {
    ImageDecoder d = libjpeg();
    SplittableRandom random = new SplittableRandom(32);
    int[][] encodings = {{2, 2, 0}, {2, 1, 0}, {1, 1, 0}, {1, 2, 0}, {2, 2, 1}, {1, 1, 1}};
    int[][] sizes = {{333, 217}, {64, 48}, {17, 9}, {500, 375}};
    int checked = 0;
    for (int[] size : sizes) {
      for (boolean grey : new boolean[] {false, true}) {
        BufferedImage picture = picture(size[0], size[1], grey);
        for (int[] e : encodings) {
          if (grey && (e[0] != 1 || e[1] != 1)) {
            continue;
          }
          byte[] data = jpeg(picture, e[0], e[1], e[2] == 1);
          ImageHeader header = ImageHeader.read(data, data.length);
          assertThat(header.grey()).isEqualTo(grey);
          for (int scale : new int[] {1, 2, 4, 8}) {
            Image full = whole(d, data, scale);
            assertThat(full.width).isEqualTo((size[0] + scale - 1) / scale);
            assertThat(full.channels).isEqualTo(grey ? 1 : 3);
            for (int i = 0; i < 12; i++) {
              int w = 1 + random.nextInt(full.width);
              int h = 1 + random.nextInt(full.height);
              CropBox box =
                  new CropBox(
                      random.nextInt(full.height - h + 1),
                      random.nextInt(full.width - w + 1),
                      h,
                      w);
              Image part = new Image();
              assertThat(d.decodeRegion(data, data.length, header, scale, box, part)).isTrue();
              assertThat(part.width).isEqualTo(w);
              assertThat(part.height).isEqualTo(h);
              assertThat(part.copyPixels())
                  .as(
                      "%s %dx%d sampled %dx%d%s at 1/%d, %s",
                      grey ? "grey" : "RGB",
                      size[0],
                      size[1],
                      e[0],
                      e[1],
                      e[2] == 1 ? " progressive" : "",
                      scale,
                      box)
                  .isEqualTo(cut(full, box));
              checked++;
            }
          }
        }
      }
    }
    assertThat(checked).isEqualTo(4 * 4 * 12 * 8);
  }

  @Test
  void shouldDecodeAsPil() throws Exception {
    Image rgb = whole(libjpeg(), Goldens.bytes("photo_q90.jpg"), 1);
    double exact = Goldens.assertClose("decode_photo_jpg_rgb", rgb, 2, 0.95);
    System.out.printf("libjpeg JPEG decode: %.4f of values equal to PIL's%n", exact);
  }

  @Test
  void shouldGiveTheSamplesOfAWholeDecodeThroughARandomResizedCrop() throws Throwable {
    String other = Decoders.openCvAvailable() ? Decoders.OPENCV : Decoders.IMAGEIO;
    byte[] big = Goldens.bytes("big_q90.jpg");
    byte[] photo = Goldens.bytes("photo_q90.jpg");
    String[] chains = { // fused into the output, and step by step
      "|randomResizedCrop(48:64,scale=0.05:1)|hflip|toFloat",
      "|randomResizedCrop(40,scale=0.05:1)|pad(2)|hflip|toUint8(hwc)"
    };
    for (String steps : chains) {
      for (String decode : new String[] {"decode(rgb,decoder=", "decode(grey,decoder="}) {
        VisionTransformHarness cropping = new VisionTransformHarness(decode + "libjpeg)" + steps);
        VisionTransformHarness whole = new VisionTransformHarness(decode + other + ")" + steps);
        for (long key = 0; key < 24; key++) {
          for (byte[] value : new byte[][] {big, photo}) {
            byte[] expected = whole.run(value, key);
            byte[] actual = cropping.run(value, key);
            if (other.equals(Decoders.OPENCV)) {
              assertThat(actual).as("%s%s sample %d", decode, steps, key).isEqualTo(expected);
            } else {
              assertThat(actual).hasSameSizeAs(expected);
            }
          }
        }
      }
    }
  }

  @Test
  void shouldDecodeFromManyThreadsAtOnce() throws Exception {
    byte[] data = jpeg(picture(333, 217, false), 2, 2, false);
    ImageHeader header = ImageHeader.read(data, data.length);
    Image full = whole(libjpeg(), data, 1);
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      java.util.List<java.util.concurrent.Future<Integer>> done = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        long seed = t;
        done.add(
            pool.submit(
                () -> {
                  ImageDecoder d = libjpeg();
                  SplittableRandom random = new SplittableRandom(seed);
                  Image part = new Image();
                  int same = 0;
                  for (int i = 0; i < 200; i++) {
                    int w = 1 + random.nextInt(333);
                    int h = 1 + random.nextInt(217);
                    CropBox box =
                        new CropBox(random.nextInt(217 - h + 1), random.nextInt(333 - w + 1), h, w);
                    d.decodeRegion(data, data.length, header, 1, box, part);
                    same += Arrays.equals(part.copyPixels(), cut(full, box)) ? 1 : 0;
                  }
                  return same;
                }));
      }
      for (java.util.concurrent.Future<Integer> f : done) {
        assertThat(f.get()).isEqualTo(200);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Damaged JPEGs (bytes after the header overwritten at random) decode to something or are an
   * {@link IllegalArgumentException} from libjpeg; none crashes the JVM or hangs. 600 of them;
   * {@code -Dstoker.fuzz.jpeg=N} for a longer run by hand.
   */
  @Test
  void shouldSurviveDamagedJpegs() throws Exception {
    byte[] clean = jpeg(picture(200, 150, false), 2, 2, false);
    byte[] progressive = jpeg(picture(200, 150, false), 2, 2, true);
    SplittableRandom random = new SplittableRandom(7);
    Image out = new Image().reset(200, 150, 3);
    int refused = 0;
    int decoded = 0;
    int runs = Integer.getInteger("stoker.fuzz.jpeg", 600);
    for (int i = 0; i < runs; i++) {
      byte[] data = (i % 2 == 0 ? clean : progressive).clone();
      int damage = 1 + random.nextInt(20);
      for (int k = 0; k < damage; k++) {
        data[20 + random.nextInt(data.length - 22)] = (byte) random.nextInt(256);
      }
      int scale = 1 << random.nextInt(4);
      int width = (200 + scale - 1) / scale;
      int height = (150 + scale - 1) / scale;
      int w = 1 + random.nextInt(width);
      int h = 1 + random.nextInt(height);
      try {
        NativeJpeg.decode(
            data,
            data.length,
            scale,
            random.nextInt(width - w + 1),
            random.nextInt(height - h + 1),
            w,
            h,
            3,
            out.pixels);
        decoded++;
      } catch (IllegalArgumentException e) {
        assertThat(e).hasMessageStartingWith("libjpeg: ");
        refused++;
      }
    }
    System.out.printf("damaged JPEGs: %d decoded, %d refused%n", decoded, refused);
    assertThat(decoded + refused).isEqualTo(runs);
    assertThat(refused).isPositive();
  }

  @Test
  void shouldRefuseBadDataAndBadRectangles() throws Exception {
    byte[] data = Goldens.bytes("photo_q90.jpg"); // 200 x 150
    Image out = new Image().reset(200, 150, 3);
    assertThatThrownBy(() -> NativeJpeg.decode(data, data.length, 1, 150, 0, 51, 10, 3, out.pixels))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("region 150,0 51x10 outside the decoded 200x150");
    assertThatThrownBy(() -> NativeJpeg.decode(data, data.length, 1, 0, 0, 10, 10, 1, out.pixels))
        .hasMessageContaining("3 colour components (expected: 1, grey)");
    assertThatThrownBy(() -> NativeJpeg.decode(data, data.length, 3, 0, 0, 10, 10, 3, out.pixels))
        .hasMessageContaining("arguments out of range");
    assertThatThrownBy(() -> NativeJpeg.decode(data, data.length + 1, 1, 0, 0, 1, 1, 3, out.pixels))
        .hasMessageContaining("arguments out of range");
    assertThatThrownBy(
            () -> NativeJpeg.decode(data, data.length, 1, 0, 0, 200, 150, 3, new byte[5]))
        .hasMessageContaining("arguments out of range");
    byte[] garbled = data.clone();
    Arrays.fill(garbled, 200, garbled.length - 2, (byte) 0x55);
    assertThatThrownBy(
            () -> NativeJpeg.decode(garbled, garbled.length, 1, 0, 0, 200, 150, 3, out.pixels))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("libjpeg: ");
    assertThatThrownBy(() -> NativeJpeg.decode(null, 1, 1, 0, 0, 1, 1, 3, out.pixels))
        .isInstanceOf(NullPointerException.class);
    // After every refusal the library still decodes.
    NativeJpeg.decode(data, data.length, 1, 0, 0, 200, 150, 3, out.pixels);
    assertThat(out.copyPixels()).isEqualTo(whole(libjpeg(), data, 1).copyPixels());
  }
}
