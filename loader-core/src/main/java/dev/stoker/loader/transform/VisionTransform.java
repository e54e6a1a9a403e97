package dev.stoker.loader.transform;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.SampleInput;
import dev.stoker.loader.SampleRandom;
import dev.stoker.loader.SampleTransform;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The built-in vision transforms of one spec: {@code decode}, geometric steps, an output step. The
 * image column becomes a fixed-shape field of the same name; every other fixed field passes through
 * unchanged. Shares nothing mutable between threads: each worker has its own {@link Scratch}.
 * Serialized as its spec text and parsed again where it lands.
 */
final class VisionTransform implements SampleTransform {
  private static final long serialVersionUID = 1L;

  private final String spec;
  private final DecodeStep decode;
  private final List<ImageOp> ops;
  private final PixelOutput output;
  private final transient ThreadLocal<Scratch> scratch;

  /**
   * Whether the first step resizes and only flips follow it, into an output of the decode's
   * channels: then the resampler's rows go straight into the output ({@link OutputRows}).
   */
  private final boolean fused;

  /** The schemas last resolved: immutable, replaced whole. */
  private transient volatile Plan plan;

  private record Plan(Schema input, Schema output, int column, int[] passThrough, int[] size) {}

  VisionTransform(String spec, DecodeStep decode, List<ImageOp> ops, PixelOutput output) {
    this.spec = spec;
    this.decode = decode;
    this.ops = List.copyOf(ops);
    this.output = output;
    java.util.function.Supplier<ImageDecoder> decoders = Decoders.factory(decode.decoder());
    this.scratch = ThreadLocal.withInitial(() -> new Scratch(decoders));
    this.fused =
        !this.ops.isEmpty()
            && firstApplied() == 1
            && this.ops.stream().skip(1).allMatch(HorizontalFlip.class::isInstance)
            && output.fuses(decode.channels());
  }

  List<ImageOp> ops() {
    return ops;
  }

  boolean fused() {
    return fused;
  }

  @Override
  public Schema outputSchema(Schema input) {
    return resolve(input).output();
  }

  private Plan resolve(Schema input) {
    Plan p = plan;
    if (p != null && p.input().equals(input)) {
      return p;
    }
    int column = imageColumn(input);
    int[] size = null;
    for (ImageOp op : ops) {
      size = op.outputSize(size);
    }
    if (size == null) {
      throw new IllegalArgumentException(
          "transforms: '"
              + spec
              + "' makes images of varying size (expected: a fixed size at the end; add "
              + "centerCrop(N) or randomResizedCrop(N) after resize(N), or resize to (h,w))");
    }
    List<Field> fields = new ArrayList<>();
    List<Integer> passThrough = new ArrayList<>();
    List<String> otherVariable = new ArrayList<>();
    for (int f = 0; f < input.size(); f++) {
      Field field = input.field(f);
      if (f == column) {
        fields.add(output.field(field.name(), decode.channels(), size[0], size[1]));
      } else if (field.isVariable()) {
        otherVariable.add(field.name());
      } else {
        fields.add(field);
        passThrough.add(f);
      }
    }
    if (!otherVariable.isEmpty()) {
      throw new IllegalArgumentException(
          "transforms: '"
              + spec
              + "' decodes column '"
              + input.field(column).name()
              + "' but variable-length fields "
              + otherVariable
              + " would reach the batch (expected: drop them from the dataset, or a class: "
              + "transform that reads them)");
    }
    int[] through = passThrough.stream().mapToInt(Integer::intValue).toArray();
    p = new Plan(input, Schema.of(fields), column, through, size);
    plan = p;
    return p;
  }

  private int imageColumn(Schema input) {
    if (decode.column() != null) {
      int index;
      try {
        index = input.indexOf(decode.column());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "transforms: decode(column=" + decode.column() + "): " + e.getMessage(), e);
      }
      Field field = input.field(index);
      if (!field.isVariable() || field.dtype() != DType.UINT8) {
        throw new IllegalArgumentException(
            String.format(
                "transforms: decode(column=%s) is %s%s (expected: a variable-length uint8 field of "
                    + "encoded images, Field.variable(\"%s\", DType.UINT8))",
                field.name(), field.dtype().label(), field.shapeText(), field.name()));
      }
      return index;
    }
    List<String> names = new ArrayList<>();
    int found = -1;
    for (int f = 0; f < input.size(); f++) {
      Field field = input.field(f);
      if (field.isVariable() && field.dtype() == DType.UINT8) {
        names.add(field.name());
        found = f;
      }
    }
    if (names.size() != 1) {
      throw new IllegalArgumentException(
          "transforms: decode finds "
              + (names.isEmpty() ? "no variable-length uint8 field" : "several: " + names)
              + " in "
              + input.names()
              + " (expected: "
              + (names.isEmpty()
                  ? "a Field.variable(name, DType.UINT8) column of encoded images"
                  : "decode(rgb,column=NAME) naming one")
              + ")");
    }
    return found;
  }

  @Override
  public void apply(SampleInput in, SampleWriter out, SampleRandom random) {
    Plan p = resolve(in.schema());
    Scratch s = scratch.get();
    ByteBuffer value = in.value(p.column());
    byte[] data = value.array();
    int length = value.remaining();
    if (value.arrayOffset() + value.position() != 0) {
      data = new byte[length];
      value.get(value.position(), data, 0, length);
    }
    Decoded decoded = decode(data, length, p, s, random);
    if (fused) {
      writeFused(decoded, p, s, random, out);
    } else {
      Image image = firstStep(decoded, s);
      writeStepped(image, p, s, random, out);
    }
    for (int f : p.passThrough()) {
      in.copyTo(f, out, f);
    }
  }

  /** The first step's rows straight into the output, mirrored if the flips say so. */
  private void writeFused(
      Decoded decoded, Plan p, Scratch s, RandomGenerator random, SampleWriter out) {
    boolean mirror = false;
    for (int i = 1; i < ops.size(); i++) {
      mirror ^= ((HorizontalFlip) ops.get(i)).flips(random);
    }
    OutputRows rows = output.rows(decode.channels(), mirror, s.outputRows);
    firstStep(decoded, rows, s);
    checkSize(rows.height(), rows.width(), p);
    rows.write(out, p.column());
  }

  /** The steps after the first, one image at a time, then the output. */
  private void writeStepped(
      Image image, Plan p, Scratch s, RandomGenerator random, SampleWriter out) {
    Image spare = image == s.decoded ? s.spare : s.decoded;
    for (int i = firstApplied(); i < ops.size(); i++) {
      Image result = ops.get(i).apply(image, spare, random, s);
      if (result != image) {
        spare = image;
        image = result;
      }
    }
    checkSize(image.height, image.width, p);
    output.write(image, out, p.column(), s);
  }

  private void checkSize(int height, int width, Plan p) {
    if (height != p.size()[0] || width != p.size()[1]) {
      throw new IllegalStateException(
          "transforms: '"
              + spec
              + "' made an image of "
              + height
              + " x "
              + width
              + " (expected: "
              + p.size()[0]
              + " x "
              + p.size()[1]
              + ")");
    }
  }

  /** How many ops {@link #decodeAndFirstStep} applied: the first, when it planned the decode. */
  private int firstApplied() {
    if (ops.isEmpty()) {
      return 0;
    }
    ImageOp first = ops.get(0);
    return first instanceof RandomResizedCrop || first instanceof Resize ? 1 : 0;
  }

  /** An image decoded and converted, with what its first step chose before the decode. */
  private record Decoded(Image image, ImageHeader header, CropBox box, int scale) {}

  /**
   * Reads the header, checks the pixel bound, lets the first step choose its box and the decode's
   * scale, decodes and converts the colours.
   */
  private Decoded decode(byte[] data, int length, Plan p, Scratch s, RandomGenerator random) {
    String column = p.input().field(p.column()).name();
    ImageHeader header;
    try {
      header = ImageHeader.read(data, length);
    } catch (IllegalArgumentException e) {
      throw bad(column, e.getMessage(), length, null);
    }
    if (header.pixels() > decode.maxPixels()) {
      throw new BadImageException(
          String.format(
              "column '%s': an image of %d x %d = %d pixels exceeds maxPixels %d (a decompression "
                  + "bomb?) in a value of %d bytes (remedy: drop the row, raise decode(maxPixels=N), "
                  + "or set onBadSample=skip)",
              column,
              header.width(),
              header.height(),
              header.pixels(),
              decode.maxPixels(),
              length));
    }
    ImageOp first = ops.isEmpty() ? null : ops.get(0);
    boolean reduce =
        decode.draft() && header.format() == ImageFormat.JPEG && s.decoder.reducesJpeg();
    CropBox box = null;
    int scale = 1;
    if (first instanceof RandomResizedCrop crop) {
      box = crop.choose(header.height(), header.width(), random);
      scale = reduce ? crop.reduction(box) : 1;
    } else if (first instanceof Resize resize && reduce) {
      int[] target = resize.target(header.height(), header.width());
      scale = Draft.reduction(header.width() / target[1], header.height() / target[0]);
    }
    Image image = s.decoded;
    int expectW = Draft.reduced(header.width(), scale);
    int expectH = Draft.reduced(header.height(), scale);
    try {
      if (box != null && header.format() == ImageFormat.JPEG) {
        CropBox region = RandomResizedCrop.region(box, scale, expectW, expectH);
        if (s.decoder.decodeRegion(data, length, header, scale, region, image)) {
          box = RandomResizedCrop.within(box, region, scale);
          expectW = region.width();
          expectH = region.height();
        }
      } else {
        s.decoder.decode(data, length, header, scale, image);
      }
    } catch (Exception e) {
      throw bad(column, s.decoder.name(header.format()) + " could not decode it: " + e, length, e);
    }
    if (image.width != expectW || image.height != expectH) {
      throw bad(
          column,
          String.format(
              "decoded to %d x %d (expected: %d x %d from its header)",
              image.width, image.height, expectW, expectH),
          length,
          null);
    }
    return new Decoded(Colours.convert(image, decode.channels(), s.spare), header, box, scale);
  }

  /** Applies the first step when {@link #decode} planned it: the result, or the image itself. */
  private Image firstStep(Decoded d, Scratch s) {
    Image converted = d.image();
    Image spare = converted == s.decoded ? s.spare : s.decoded;
    ImageOp first = ops.isEmpty() ? null : ops.get(0);
    if (first instanceof RandomResizedCrop crop) {
      return crop.resize(converted, d.box(), d.scale(), spare, s.resampler);
    }
    if (first instanceof Resize resize) {
      ImageHeader h = d.header();
      return resize.resizeReduced(converted, h.height(), h.width(), d.scale(), spare, s.resampler);
    }
    return converted;
  }

  /** Applies the first step, a resize, handing its rows to {@code rows}. */
  private void firstStep(Decoded d, Resampler.Rows rows, Scratch s) {
    ImageOp first = ops.get(0);
    if (first instanceof RandomResizedCrop crop) {
      crop.resize(d.image(), d.box(), d.scale(), rows, s.resampler);
    } else {
      ImageHeader h = d.header();
      ((Resize) first)
          .resizeReduced(d.image(), h.height(), h.width(), d.scale(), rows, s.resampler);
    }
  }

  private static BadImageException bad(String column, String reason, int length, Throwable cause) {
    return new BadImageException(
        String.format(
            "column '%s': %s in a value of %d bytes (remedy: fix or drop the row, or set "
                + "onBadSample=skip to skip such samples)",
            column, reason, length),
        cause);
  }

  @Override
  public String toString() {
    return "transforms '" + spec + "'";
  }

  private Object writeReplace() throws ObjectStreamException {
    return new Spec(spec);
  }

  /** The serialized form: the spec, parsed again where it is read. */
  private record Spec(String text) implements Serializable {
    private Object readResolve() throws ObjectStreamException {
      return Transforms.parse(text);
    }
  }
}
