package dev.stoker.loader.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.SampleTransform;
import dev.stoker.loader.Schema;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

class VisionSpecTest {
  private static final Schema IMAGES =
      Schema.of(Field.variable("image", DType.UINT8), Field.scalar("label", DType.INT64));

  @Test
  void shouldMakeTheImageColumnAFixedFieldAndPassLabelsThrough() {
    SampleTransform t =
        Transforms.parse("decode(rgb)|randomResizedCrop(224)|hflip|normalize(imagenet)");
    assertThat(t.outputSchema(IMAGES))
        .isEqualTo(
            Schema.of(
                Field.of("image", DType.FLOAT32, 3, 224, 224), Field.scalar("label", DType.INT64)));
    assertThat(
            Transforms.parse("decode(grey, column=image)|resize(32:40)|toUint8(hwc)")
                .outputSchema(IMAGES)
                .field("image"))
        .isEqualTo(Field.of("image", DType.UINT8, 32, 40, 1));
    assertThat(
            Transforms.parse(
                    "decode(rgb,draft=false)|resize(256)|centerCrop(224)|normalize(mean=0.5:0.5:0.5,std=0.2:0.2:0.2)")
                .outputSchema(IMAGES)
                .field("image"))
        .isEqualTo(Field.of("image", DType.FLOAT32, 3, 224, 224));
    assertThat(
            Transforms.parse("decode|randomCrop(32,padding=4)|toFloat")
                .outputSchema(IMAGES)
                .field("image"))
        .isEqualTo(Field.of("image", DType.FLOAT32, 3, 32, 32));
  }

  @Test
  void shouldRefuseSpecsWhoseOutputSizeVaries() {
    assertThatThrownBy(() -> Transforms.parse("decode(rgb)").outputSchema(IMAGES))
        .hasMessageContaining("varying size")
        .hasMessageContaining("add centerCrop(N) or randomResizedCrop(N) after resize(N)");
    assertThatThrownBy(() -> Transforms.parse("decode(rgb)|resize(256)|hflip").outputSchema(IMAGES))
        .hasMessageContaining("varying size");
  }

  @Test
  void shouldNameTheStepArgumentAndValueOfBadSpecs() {
    assertThatThrownBy(() -> Transforms.parse("decode(rgb)|rotate(10)"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown step 'rotate'")
        .hasMessageContaining("randomResizedCrop(N|H:W");
    assertThatThrownBy(() -> Transforms.parse("decode(rgb)|randomResizedCrop(224,scale=0.08:x)"))
        .hasMessageContaining("step randomResizedCrop: scale=0.08:x")
        .hasMessageContaining("expected: numbers from 0.0 to 1.0");
    assertThatThrownBy(() -> Transforms.parse("decode(rgb)|centerCrop(0)"))
        .hasMessageContaining("step centerCrop: size=0");
    assertThatThrownBy(() -> Transforms.parse("decode(cmyk)|centerCrop(4)"))
        .hasMessageContaining("step decode: mode=cmyk (expected: one of rgb");
    assertThatThrownBy(() -> Transforms.parse("decode(rgb)|hflip(p=2)"))
        .hasMessageContaining("step hflip: p=2");
    assertThatThrownBy(() -> Transforms.parse("decode(rgb)|centerCrop(8,color=red)"))
        .hasMessageContaining("step centerCrop: unknown or extra arguments [color=red]");
    assertThatThrownBy(() -> Transforms.parse("centerCrop(8)|decode(rgb)"))
        .hasMessageContaining("first step centerCrop (expected: decode first");
    assertThatThrownBy(() -> Transforms.parse("decode(rgb)|normalize(imagenet)|centerCrop(8)"))
        .hasMessageContaining("after the output step");
    assertThatThrownBy(() -> Transforms.parse("decode(grey)|centerCrop(8)|normalize(imagenet)"))
        .hasMessageContaining("for 1 channel(s)");
    assertThatThrownBy(() -> Transforms.parse("decode(rgb)||centerCrop(8)"))
        .hasMessageContaining("empty step");
    assertThatThrownBy(() -> Transforms.parse("decode(rgb,decoder=libpng)|centerCrop(8)"))
        .hasMessageContaining(
            "step decode: decoder=libpng (expected: one of auto, libjpeg, opencv, imageio)");
  }

  @Test
  void shouldFindTheImageColumnOrNameTheCandidates() {
    SampleTransform t = Transforms.parse("decode(rgb)|centerCrop(8)");
    Schema two = Schema.of(Field.variable("a", DType.UINT8), Field.variable("b", DType.UINT8));
    assertThatThrownBy(() -> t.outputSchema(two))
        .hasMessageContaining("several: [a, b]")
        .hasMessageContaining("decode(rgb,column=NAME)");
    assertThatThrownBy(() -> t.outputSchema(Schema.of(Field.scalar("label", DType.INT64))))
        .hasMessageContaining("no variable-length uint8 field");
    assertThatThrownBy(
            () -> Transforms.parse("decode(rgb,column=a)|centerCrop(8)").outputSchema(two))
        .hasMessageContaining("variable-length fields [b] would reach the batch");
    assertThatThrownBy(
            () -> Transforms.parse("decode(rgb,column=label)|centerCrop(8)").outputSchema(IMAGES))
        .hasMessageContaining("decode(column=label) is int64");
  }

  @Test
  void shouldSerializeAsItsSpec() throws Exception {
    SampleTransform t = Transforms.parse("decode(rgb)|randomResizedCrop(32)|hflip|toFloat");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(t);
    }
    Object back = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray())).readObject();
    assertThat(back).isInstanceOf(VisionTransform.class);
    assertThat(((SampleTransform) back).outputSchema(IMAGES)).isEqualTo(t.outputSchema(IMAGES));
  }
}
