package dev.stoker.loader.transform;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A spec whose first step resizes and whose other steps only flip writes the resampler's rows
 * straight into the output; the same spec with a step that changes nothing ({@code centerCrop} to
 * the size it already has) takes the step-by-step path. Both must write the same bytes, sample by
 * sample, for every output and both kinds of image.
 */
class FusedOutputTest {
  private static final List<String> OUTPUTS =
      List.of(
          "normalize(mean=0.5:0.4:0.3,std=0.2:0.25:0.3)",
          "toFloat",
          "toUint8(chw)",
          "toUint8(hwc)");

  @Test
  void shouldWriteWhatTheStepByStepPathWrites() throws Throwable {
    for (String image : List.of("photo.png", "photo_q90.jpg")) {
      byte[] value = Goldens.bytes(image);
      // Only the height changes: the resampler has no horizontal pass, and widens the input's
      // rows straight into the output's order.
      String width = image.startsWith("photo.") ? "160" : "200";
      for (String output : OUTPUTS) {
        for (String[] pair :
            new String[][] {
              {
                "decode(rgb)|randomResizedCrop(32:24)",
                "decode(rgb)|randomResizedCrop(32:24)|centerCrop(32:24)"
              },
              {
                "decode(rgb)|randomResizedCrop(40,scale=0.5:1)|hflip(p=0.5)|hflip",
                "decode(rgb)|randomResizedCrop(40,scale=0.5:1)|centerCrop(40)|hflip(p=0.5)|hflip"
              },
              {
                "decode(rgb)|resize(30:50)|hflip",
                "decode(rgb)|resize(30:50)|centerCrop(30:50)|hflip"
              },
              {
                "decode(grey)|randomResizedCrop(20)|hflip",
                "decode(grey)|randomResizedCrop(20)|centerCrop(20)|hflip"
              },
              {
                "decode(rgb)|resize(60:" + width + ")|hflip(p=0.5)",
                "decode(rgb)|resize(60:" + width + ")|centerCrop(60:" + width + ")|hflip(p=0.5)"
              },
              {
                "decode(grey)|resize(50:" + width + ")|hflip",
                "decode(grey)|resize(50:" + width + ")|centerCrop(50:" + width + ")|hflip"
              }
            }) {
          if (pair[0].contains("grey") && output.startsWith("normalize")) {
            continue;
          }
          String fused = pair[0] + "|" + output;
          String stepped = pair[1] + "|" + output;
          assertThat(((VisionTransform) Transforms.parse(fused)).fused()).as(fused).isTrue();
          assertThat(((VisionTransform) Transforms.parse(stepped)).fused()).as(stepped).isFalse();
          for (long key = 0; key < 6; key++) {
            assertThat(new VisionTransformHarness(fused).run(value, key))
                .as("%s, sample %d of %s, against %s", fused, key, image, stepped)
                .isEqualTo(new VisionTransformHarness(stepped).run(value, key));
          }
        }
      }
    }
  }
}
