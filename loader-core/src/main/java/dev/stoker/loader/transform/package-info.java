/**
 * Per-sample transforms by name: the spec strings that a read's {@code transforms} option holds
 * (built-ins composed with {@code |}, or a user's {@link dev.stoker.loader.SampleTransform} by
 * class name), parsed into one {@link dev.stoker.loader.SampleTransform}. Uses the loader's API
 * types and util only, never its pipeline, memory or devices.
 *
 * <p>The built-in vision steps follow torchvision 0.14 on PIL images, pixel for pixel: {@code
 * decode(rgb|grey, column=, draft=true, maxPixels=89478485, decoder=auto)}, {@code resize(N)} (the
 * shorter side) or {@code resize(H:W)}, {@code centerCrop}, {@code randomResizedCrop(N, scale=,
 * ratio=)}, {@code pad(N, fill=)}, {@code randomCrop(N, padding=, fill=)}, {@code hflip(p=)}, then
 * one output step: {@code normalize(imagenet)} or {@code normalize(mean=a:b:c,std=a:b:c)} (float32
 * CHW), {@code toFloat} (x/255, CHW) or {@code toUint8(chw|hwc)} (the default, CHW). Resizing is
 * Pillow's antialiased bilinear in its fixed point: equal to torchvision's output on every value of
 * the test images. Random choices (the crop box, the flip) come from the sample's {@link
 * dev.stoker.loader.SampleRandom}, not torchvision's generator.
 *
 * <p>Decoding: JPEGs by the system's libjpeg-turbo through Stoker's JNI library ({@code
 * NativeJpeg}, compiled into the jar where the build has a C compiler and libjpeg's headers), which
 * decodes only the rectangle a {@code randomResizedCrop} reads (skipping rows above it, stopping
 * below it, cropping the columns): the same pixels as a whole decode at about 0.7 of its time on
 * 500x375 photos. PNGs, and JPEGs where that library is absent, by OpenCV (org.bytedeco:opencv, an
 * optional dependency) when it loads, else the JDK's ImageIO. All give PIL's pixels on the test
 * PNGs and JPEG. Of the whole-image decoders OpenCV wins because it is the only candidate that is
 * both deployable from Maven Central to any Spark cluster (its natives ship in the platform jar)
 * and fast: on 16 photos of 500x375 at q90 (DecoderTiming in the tests, on a shared 2-core machine,
 * so noisy) the median per image was 2.7 ms for OpenCV against 4.6 ms for ImageIO and 4.3 ms for
 * TwelveMonkeys (which decodes through the same JDK libjpeg), the fastest rounds 0.8 ms against 2.5
 * and 2.2; and it decodes a JPEG at 1/2, 1/4, 1/8 scale in the DCT (median 0.9 ms at 1/2). Debian's
 * TurboJPEG binding is as fast but not on Maven Central. With {@code draft=true} (the default) a
 * JPEG whose first step after decode is {@code resize} or {@code randomResizedCrop} is decoded at
 * the largest reduction that keeps the needed region at least the target size, as PIL's {@code
 * draft} chooses; the crop box is chosen on the full-size image first, so the random draws are the
 * same either way. The result differs from torchvision's full-size path by under 2 levels on
 * average (tested); {@code draft=false} gives torchvision's pixels.
 *
 * <p>Resizing runs in plain Java at close to the speed of Pillow's own C: a horizontal pass written
 * out per tap count for two rows at once ({@code HorizontalPass}), then a vertical pass of
 * whole-row sums that the JIT vectorizes. When the first step resizes and only flips follow, the
 * horizontal pass already writes each value in the output's order ({@code RowLayout}: channel
 * planes, mirrored if flipped) and the rows go straight into the output ({@code OutputRows}), with
 * no separate clip, flip, reorder or normalize pass; otherwise each step works on a whole image.
 *
 * <p>Bad values (empty, not a JPEG or PNG, truncated, over {@code maxPixels} by their header, or
 * refused by the decoder) throw {@link dev.stoker.loader.transform.BadImageException}, naming the
 * column, the reason, the byte length and the remedy; {@code onBadSample=skip} skips them.
 */
package dev.stoker.loader.transform;
