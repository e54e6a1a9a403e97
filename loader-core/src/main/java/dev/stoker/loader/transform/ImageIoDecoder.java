package dev.stoker.loader.transform;

import java.awt.image.BufferedImage;
import java.awt.image.DataBuffer;
import java.awt.image.DataBufferByte;
import java.awt.image.IndexColorModel;
import java.awt.image.Raster;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Iterator;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.stream.MemoryCacheImageInputStream;

/**
 * The JDK's ImageIO: always there, pure Java for PNG, the JDK's own libjpeg 6b for JPEG; no reduced
 * JPEG decode. The fallback when OpenCV is not on the class path. Keeps one reader per format and
 * reads from memory (no cache file).
 */
final class ImageIoDecoder implements ImageDecoder {
  private final ImageReader jpeg = reader("jpeg");
  private final ImageReader png = reader("png");
  private int[] row = new int[0];

  private static ImageReader reader(String format) {
    Iterator<ImageReader> readers = ImageIO.getImageReadersByFormatName(format);
    if (!readers.hasNext()) {
      throw new IllegalStateException("the JDK has no ImageIO reader for " + format);
    }
    return readers.next();
  }

  @Override
  public String name() {
    return "imageio";
  }

  @Override
  public boolean reducesJpeg() {
    return false;
  }

  @Override
  public void decode(byte[] data, int length, ImageHeader header, int scale, Image out)
      throws IOException {
    ImageReader reader = header.format() == ImageFormat.JPEG ? jpeg : png;
    BufferedImage image;
    try (MemoryCacheImageInputStream in =
        new MemoryCacheImageInputStream(new ByteArrayInputStream(data, 0, length))) {
      reader.setInput(in, true, true);
      image = reader.read(0);
    } finally {
      reader.setInput(null);
    }
    copy(image, header.grey() ? 1 : 3, out);
  }

  private void copy(BufferedImage image, int channels, Image out) {
    int w = image.getWidth();
    int h = image.getHeight();
    out.reset(w, h, channels);
    byte[] px = out.pixels;
    Raster raster = image.getRaster();
    int type = image.getType();
    if ((type == BufferedImage.TYPE_3BYTE_BGR && channels == 3)
        || (type == BufferedImage.TYPE_BYTE_GRAY && channels == 1)) {
      if (raster.getParent() == null
          && raster.getDataBuffer() instanceof DataBufferByte bytes
          && bytes.getNumBanks() == 1
          && bytes.getOffset() == 0
          && bytes.getData().length == w * h * channels) {
        byte[] src = bytes.getData();
        if (channels == 1) {
          System.arraycopy(src, 0, px, 0, w * h);
        } else {
          for (int i = 0; i < w * h * 3; i += 3) {
            px[i] = src[i + 2];
            px[i + 1] = src[i + 1];
            px[i + 2] = src[i];
          }
        }
        return;
      }
    }
    if (image.getColorModel() instanceof IndexColorModel) {
      copyArgb(image, channels, out);
      return;
    }
    int bits = raster.getSampleModel().getSampleSize(0);
    int shift = raster.getDataBuffer().getDataType() == DataBuffer.TYPE_BYTE ? 0 : bits - 8;
    int bands = raster.getNumBands();
    if (row.length < w * bands) {
      row = new int[w * bands];
    }
    int o = 0;
    for (int y = 0; y < h; y++) {
      raster.getPixels(0, y, w, 1, row);
      for (int x = 0; x < w; x++) {
        for (int c = 0; c < channels; c++) {
          px[o++] = (byte) (row[x * bands + c] >> shift);
        }
      }
    }
  }

  /** Palette images: each pixel through its colour model. */
  private void copyArgb(BufferedImage image, int channels, Image out) {
    int w = image.getWidth();
    if (row.length < w) {
      row = new int[w];
    }
    byte[] px = out.pixels;
    int o = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      image.getRGB(0, y, w, 1, row, 0, w);
      for (int x = 0; x < w; x++) {
        int argb = row[x];
        if (channels == 1) {
          px[o++] = (byte) argb;
        } else {
          px[o++] = (byte) (argb >> 16);
          px[o++] = (byte) (argb >> 8);
          px[o++] = (byte) argb;
        }
      }
    }
  }
}
