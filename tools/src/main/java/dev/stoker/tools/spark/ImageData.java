package dev.stoker.tools.spark;

import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.MemoryCacheImageOutputStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The images benchmark's data: JPEG photos at ImageNet-like sizes (about 500x375, one in four
 * portrait, each side varied by up to 10 %, quality 90), cut at random from real photographs and
 * scaled, written twice with the same bytes: as files ({@code images/NNNNNN.jpg} and {@code
 * labels.txt}, the way torchvision reads a dataset) and as Parquet through Spark ({@code image}
 * binary, {@code label} int, in image order). A label is the index of the photograph cut.
 */
final class ImageData {
  /** The columns of the Parquet. */
  static final StructType SCHEMA =
      new StructType()
          .add("image", DataTypes.BinaryType, false)
          .add("label", DataTypes.IntegerType, false);

  /** JPEG quality of the photos, as ImageNet's are mostly stored. */
  static final float QUALITY = 0.9f;

  /** Row groups of about 100 photos, so that a shuffled read mixes them. */
  static final long ROW_GROUP_BYTES = 8L << 20;

  /** Photos written to Parquet by one Spark write (about 90 MB of JPEG). */
  static final int WRITE_SLICE = 2000;

  /** Photographs smaller than this on a side are left out. */
  private static final int LEAST_SIDE = 256;

  /**
   * The photographs among the sample images of Debian's {@code python3-skimage} (the others are
   * drawings, text and microscopy): when a folder holds any of them, only they are used.
   */
  static final List<String> SKIMAGE_PHOTOGRAPHS =
      List.of(
          "astronaut.png",
          "chelsea.png",
          "coffee.png",
          "motorcycle_left.png",
          "motorcycle_right.png",
          "rocket.jpg",
          "hubble_deep_field.jpg",
          "retina.jpg");

  /** What was written: the folders and the encoded bytes in all. */
  record Written(Path parquet, Path files, int images, long bytes, int photos) {}

  private ImageData() {}

  /**
   * The photographs of {@code folder} (colour PNG or JPEG, at least {@value #LEAST_SIDE} pixels a
   * side) in name order; only {@link #SKIMAGE_PHOTOGRAPHS} where it holds any of them.
   *
   * @throws IllegalArgumentException if it holds none, naming the folder and where to get some
   */
  static List<BufferedImage> photos(Path folder) {
    List<BufferedImage> photos = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> list = Files.list(folder)) {
      files = list.sorted().collect(Collectors.toList());
    } catch (IOException e) {
      throw new IllegalArgumentException(missing(folder, e.toString()), e);
    }
    List<Path> known =
        files.stream()
            .filter(f -> SKIMAGE_PHOTOGRAPHS.contains(f.getFileName().toString()))
            .collect(Collectors.toList());
    if (!known.isEmpty()) {
      files = known;
    }
    for (Path file : files) {
      String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
      if (!name.endsWith(".png") && !name.endsWith(".jpg") && !name.endsWith(".jpeg")) {
        continue;
      }
      try {
        BufferedImage image = ImageIO.read(file.toFile());
        if (image != null
            && image.getWidth() >= LEAST_SIDE
            && image.getHeight() >= LEAST_SIDE
            && image.getColorModel().getNumColorComponents() == 3) {
          photos.add(rgb(image));
        }
      } catch (IOException | RuntimeException e) {
        // not an image ImageIO reads (or a truncated one); left out
      }
    }
    if (photos.isEmpty()) {
      throw new IllegalArgumentException(missing(folder, "no colour PNG or JPEG photographs"));
    }
    return photos;
  }

  private static String missing(Path folder, String why) {
    return "photos: '"
        + folder
        + "': "
        + why
        + " (expected: a folder of colour photographs, PNG or JPEG, at least "
        + LEAST_SIDE
        + " pixels a side; Debian: apt-get install python3-skimage, whose "
        + ImagesBench.DEFAULT_PHOTOS
        + " holds some)";
  }

  /** Writes {@code count} photos cut from {@code photos} under {@code dir}. */
  static Written write(SparkSession spark, Path dir, List<BufferedImage> photos, int count) {
    byte[][] jpegs = new byte[count][];
    IntStream.range(0, count)
        .parallel()
        .forEach(i -> jpegs[i] = encode(cut(photos.get(i % photos.size()), i)));
    Path files = dir.resolve("files");
    Path parquet = dir.resolve("parquet");
    long bytes = 0;
    List<Row> rows = new ArrayList<>(count);
    StringBuilder labels = new StringBuilder();
    try {
      Files.createDirectories(files.resolve("images"));
      for (int i = 0; i < count; i++) {
        Files.write(files.resolve(String.format(Locale.ROOT, "images/%06d.jpg", i)), jpegs[i]);
        int label = i % photos.size();
        labels.append(label).append('\n');
        rows.add(RowFactory.create(jpegs[i], label));
        bytes += jpegs[i].length;
      }
      Files.writeString(files.resolve("labels.txt"), labels, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("writing the photos under " + dir + ": " + e, e);
    }
    // In slices: a local relation of every photo at once holds them all in the driver's plan
    // several times over, which a few thousand photos make larger than the driver's heap.
    for (int from = 0; from < count; from += WRITE_SLICE) {
      spark
          .createDataFrame(rows.subList(from, Math.min(count, from + WRITE_SLICE)), SCHEMA)
          .write()
          .mode(from == 0 ? SaveMode.Overwrite : SaveMode.Append)
          .option("parquet.block.size", ROW_GROUP_BYTES)
          .parquet(parquet.toString());
    }
    return new Written(parquet, files, count, bytes, photos.size());
  }

  /**
   * Photo {@code i}: a random window of {@code photo} with the photo's target aspect, covering 40
   * to 100 % of the largest such window, scaled to about 500x375 (375x500 for one in four).
   */
  static BufferedImage cut(BufferedImage photo, int i) {
    SplittableRandom random = new SplittableRandom(0x5eed_1a9eL + i);
    boolean portrait = random.nextInt(4) == 0;
    int longSide = (int) Math.round(500 * random.nextDouble(0.9, 1.1));
    int shortSide = (int) Math.round(375 * random.nextDouble(0.9, 1.1));
    int width = portrait ? shortSide : longSide;
    int height = portrait ? longSide : shortSide;
    double aspect = (double) width / height;
    int fullW = Math.min(photo.getWidth(), (int) (photo.getHeight() * aspect));
    int fullH = (int) (fullW / aspect);
    double scale = Math.sqrt(random.nextDouble(0.4, 1.0));
    int w = Math.max(16, (int) (fullW * scale));
    int h = Math.max(16, (int) (fullH * scale));
    int x = random.nextInt(photo.getWidth() - w + 1);
    int y = random.nextInt(photo.getHeight() - h + 1);
    BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
    Graphics2D g = out.createGraphics();
    try {
      g.setRenderingHint(
          RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
      g.drawImage(photo, 0, 0, width, height, x, y, x + w, y + h, null);
    } finally {
      g.dispose();
    }
    return out;
  }

  /** {@code image} as a baseline JPEG of quality {@link #QUALITY}. */
  static byte[] encode(BufferedImage image) {
    ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 << 10);
    try (MemoryCacheImageOutputStream stream = new MemoryCacheImageOutputStream(bytes)) {
      writer.setOutput(stream);
      ImageWriteParam param = writer.getDefaultWriteParam();
      param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
      param.setCompressionQuality(QUALITY);
      writer.write(null, new IIOImage(image, null, null), param);
    } catch (IOException e) {
      throw new UncheckedIOException("encoding a JPEG: " + e, e);
    } finally {
      writer.dispose();
    }
    return bytes.toByteArray();
  }

  private static BufferedImage rgb(BufferedImage image) {
    if (image.getType() == BufferedImage.TYPE_3BYTE_BGR) {
      return image;
    }
    BufferedImage out =
        new BufferedImage(image.getWidth(), image.getHeight(), BufferedImage.TYPE_3BYTE_BGR);
    Graphics2D g = out.createGraphics();
    try {
      g.drawImage(image, 0, 0, null);
    } finally {
      g.dispose();
    }
    return out;
  }
}
