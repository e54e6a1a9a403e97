package dev.stoker.loader.transform;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses the built-in steps of a spec into a {@link VisionTransform}: steps joined by {@code |},
 * each {@code name} or {@code name(args)}, arguments positional or {@code key=value}, lists with
 * {@code :}. The first step is {@code decode}, the last an output step (default {@code
 * toUint8(chw)}), geometric steps between.
 */
final class VisionSpec {
  static final String FORMS =
      "decode(rgb|grey, column=NAME, draft=true, maxPixels=N, decoder=auto|libjpeg|opencv|imageio), "
          + "resize(N) or resize(H:W), centerCrop(N|H:W), "
          + "randomResizedCrop(N|H:W, scale=0.08:1.0, ratio=0.75:1.3333), pad(N, fill=0), "
          + "randomCrop(N|H:W, padding=0, fill=0), hflip(p=0.5), "
          + "normalize(imagenet) or normalize(mean=M:M:M, std=S:S:S), toFloat, toUint8(chw|hwc)";

  private VisionSpec() {}

  static VisionTransform parse(String spec) {
    List<String> steps = split(spec);
    DecodeStep decode = null;
    List<ImageOp> ops = new ArrayList<>();
    PixelOutput output = null;
    for (int i = 0; i < steps.size(); i++) {
      String step = steps.get(i);
      int open = step.indexOf('(');
      String name = (open < 0 ? step : step.substring(0, open)).strip();
      String inside = "";
      if (open >= 0) {
        if (!step.endsWith(")") || step.indexOf(')') != step.length() - 1) {
          throw new IllegalArgumentException(
              "transforms: step '"
                  + step
                  + "' (expected: name or name(args) with one pair of "
                  + "parentheses)");
        }
        inside = step.substring(open + 1, step.length() - 1);
      }
      StepArgs args = StepArgs.parse(name, inside);
      if (i == 0 != name.equals("decode")) {
        throw args.error(
            i == 0 ? "first step " + name : "decode as step " + (i + 1),
            "decode first, once, e.g. decode(rgb)|randomResizedCrop(224)|normalize(imagenet)");
      }
      if (output != null) {
        throw args.error("a step after the output step " + output.text(), "the output step last");
      }
      switch (name) {
        case "decode" -> decode = decode(args);
        case "resize" -> ops.add(resize(args));
        case "centerCrop" -> {
          int[] size = size(args);
          ops.add(new CenterCrop(size[0], size[1]));
        }
        case "randomResizedCrop" -> ops.add(randomResizedCrop(args));
        case "pad" ->
            ops.add(new Pad(args.integer(0, "padding", -1, 0), args.integer(1, "fill", 0, 0)));
        case "randomCrop" -> {
          int[] size = size(args);
          ops.add(
              new RandomCrop(
                  size[0],
                  size[1],
                  args.integer(1, "padding", 0, 0),
                  args.integer(2, "fill", 0, 0)));
        }
        case "hflip" -> ops.add(new HorizontalFlip(args.number(0, "p", 0.5, 0, 1)));
        case "normalize" -> output = normalize(args, decode.channels());
        case "toFloat" -> output = PixelOutput.toFloat(decode.channels());
        case "toUint8" ->
            output = PixelOutput.toUint8("chw".equals(args.word(0, "layout", "chw", "chw", "hwc")));
        default ->
            throw new IllegalArgumentException(
                "transforms: unknown step '"
                    + name
                    + "' in '"
                    + spec
                    + "' (expected one of: "
                    + FORMS
                    + ")");
      }
      if (name.equals("pad") && ops.get(ops.size() - 1) instanceof Pad pad && pad.padding() < 0) {
        throw args.error("no padding", "pad(N) with N >= 0");
      }
      if (ops.stream().anyMatch(op -> op instanceof Pad p && p.fill() > 255)
          || ops.stream().anyMatch(op -> op instanceof RandomCrop c && c.fill() > 255)) {
        throw args.error("fill above 255", "fill from 0 to 255");
      }
      args.done(FORMS);
    }
    if (output == null) {
      output = PixelOutput.toUint8(true);
    }
    return new VisionTransform(spec.strip(), decode, ops, output);
  }

  private static List<String> split(String spec) {
    List<String> steps = new ArrayList<>();
    for (String part : spec.split("\\|", -1)) {
      String step = part.strip();
      if (step.isEmpty()) {
        throw new IllegalArgumentException(
            "transforms: '" + spec + "' has an empty step (expected: steps joined by single |)");
      }
      steps.add(step);
    }
    return steps;
  }

  private static DecodeStep decode(StepArgs args) {
    String mode = args.word(0, "mode", "rgb", "rgb", "RGB", "grey", "gray", "L");
    int channels = mode.equalsIgnoreCase("rgb") ? 3 : 1;
    String column = args.word(-1, "column", null);
    boolean draft = args.bool(-1, "draft", true);
    long maxPixels = args.integer(-1, "maxPixels", (int) DecodeStep.DEFAULT_MAX_PIXELS, 1);
    String decoder =
        args.word(
            -1,
            "decoder",
            Decoders.AUTO,
            Decoders.AUTO,
            Decoders.LIBJPEG,
            Decoders.OPENCV,
            Decoders.IMAGEIO);
    return new DecodeStep(channels, column, draft, maxPixels, decoder);
  }

  /** {@code N} (square) or {@code H:W}, positional first or {@code size=}. */
  private static int[] size(StepArgs args) {
    double[] values = args.numbers(0, "size", 0, 1, 1 << 20);
    if (values == null
        || values.length > 2
        || values[0] != Math.rint(values[0])
        || values[values.length - 1] != Math.rint(values[values.length - 1])) {
      throw args.error(
          "size " + (values == null ? "missing" : java.util.Arrays.toString(values)),
          "size N or H:W, integers >= 1");
    }
    return new int[] {(int) values[0], (int) values[values.length - 1]};
  }

  private static Resize resize(StepArgs args) {
    double[] values = args.numbers(0, "size", 0, 1, 1 << 20);
    if (values != null && values.length == 1) {
      args.positionalCount(); // (shorter side)
      return Resize.shorterSide(checkedInt(args, values[0]));
    }
    if (values == null || values.length != 2) {
      throw args.error(
          "size missing or malformed", "resize(N) for the shorter side or resize(H:W)");
    }
    return Resize.exact(checkedInt(args, values[0]), checkedInt(args, values[1]));
  }

  private static int checkedInt(StepArgs args, double value) {
    if (value != Math.rint(value)) {
      throw args.error("size " + value, "integers >= 1");
    }
    return (int) value;
  }

  private static RandomResizedCrop randomResizedCrop(StepArgs args) {
    int[] size = size(args);
    double[] scale = args.numbers(1, "scale", 2, 0, 1);
    double[] ratio = args.numbers(2, "ratio", 2, 1e-6, 1e6);
    scale = scale == null ? new double[] {0.08, 1.0} : scale;
    ratio = ratio == null ? new double[] {3.0 / 4.0, 4.0 / 3.0} : ratio;
    if (scale[0] > scale[1] || scale[1] <= 0 || ratio[0] > ratio[1]) {
      throw args.error(
          "scale=" + scale[0] + ":" + scale[1] + " ratio=" + ratio[0] + ":" + ratio[1],
          "lo:hi with lo <= hi, scale up to 1");
    }
    return new RandomResizedCrop(size[0], size[1], scale[0], scale[1], ratio[0], ratio[1]);
  }

  private static PixelOutput normalize(StepArgs args, int channels) {
    String preset = args.word(0, "preset", null, "imagenet");
    double[] mean = args.numbers(-1, "mean", 0, -1e6, 1e6);
    double[] std = args.numbers(-1, "std", 0, 1e-12, 1e6);
    if (preset != null) {
      if (mean != null || std != null) {
        throw args.error("imagenet with mean or std", "normalize(imagenet) or mean= and std=");
      }
      mean = PixelOutput.IMAGENET_MEAN;
      std = PixelOutput.IMAGENET_STD;
    }
    if (mean == null || std == null || mean.length != channels || std.length != channels) {
      throw args.error(
          "mean "
              + (mean == null ? "missing" : java.util.Arrays.toString(mean))
              + ", std "
              + (std == null ? "missing" : java.util.Arrays.toString(std))
              + " for "
              + channels
              + " channel(s)",
          "normalize(imagenet) for rgb, or mean=M:..:M,std=S:..:S with one value per channel");
    }
    return PixelOutput.normalize(mean, std);
  }
}
