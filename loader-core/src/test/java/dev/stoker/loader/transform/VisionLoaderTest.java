package dev.stoker.loader.transform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.SampleRandom;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The vision spec inside a real loader: the same batches for any number of workers. */
class VisionLoaderTest {
  private static final String SPEC =
      "decode(rgb)|randomResizedCrop(32)|hflip|normalize(mean=0.5:0.4:0.3,std=0.2:0.25:0.3)";

  /** PNG and JPEG bytes, alternating, each with its label. */
  private static MapDataset images(int size) {
    byte[][] values = {Goldens.bytes("photo.png"), Goldens.bytes("photo_q90.jpg")};
    return new MapDataset() {
      @Override
      public Schema schema() {
        return Schema.of(Field.variable("image", DType.UINT8), Field.scalar("label", DType.INT64));
      }

      @Override
      public int size() {
        return size;
      }

      @Override
      public void write(int index, SampleWriter row) {
        byte[] v = values[index % 2];
        row.putVariable(0, v, 0, v.length);
        row.putLong(1, 0, 1000 + index);
      }
    };
  }

  private static List<byte[]> run(int workers) {
    LoaderOptions.Builder options =
        LoaderOptions.builder().batchSize(4).shuffle(true).seed(11).numWorkers(workers);
    List<byte[]> batches = new ArrayList<>();
    try (DataLoader loader =
        DataLoader.builder(images(22))
            .options(options.build())
            .transform(Transforms.parse(SPEC))
            .build()) {
      for (int epoch = 0; epoch < 2; epoch++) {
        for (Batch batch : loader.epoch(epoch)) {
          assertThat(batch.schema().field("image"))
              .isEqualTo(Field.of("image", DType.FLOAT32, 3, 32, 32));
          ByteBuffer all = batch.buffer();
          byte[] copy = new byte[all.remaining()];
          all.get(copy);
          batches.add(copy);
          batch.close();
        }
      }
    }
    return batches;
  }

  @Test
  void shouldYieldIdenticalBatchesForZeroOneAndThreeWorkers() {
    List<byte[]> none = run(0);
    assertThat(none).hasSize(12);
    for (int workers : new int[] {1, 3}) {
      List<byte[]> other = run(workers);
      assertThat(other).hasSize(none.size());
      for (int i = 0; i < none.size(); i++) {
        assertThat(other.get(i)).as("batch %d with %d workers", i, workers).isEqualTo(none.get(i));
      }
    }
  }

  @Test
  void shouldDrawTheSameBoxAndFlipForTheSameKey() throws Throwable {
    RandomResizedCrop crop = new RandomResizedCrop(32, 32, 0.08, 1, 0.75, 4 / 3.0);
    for (long key = 0; key < 50; key++) {
      CropBox a = crop.choose(120, 160, SampleRandom.of(5, 0, key));
      CropBox b = crop.choose(120, 160, SampleRandom.of(5, 0, key));
      assertThat(a).isEqualTo(b);
      assertThat(a.top() + a.height()).isLessThanOrEqualTo(120);
      assertThat(a.left() + a.width()).isLessThanOrEqualTo(160);
      double area = (double) a.width() * a.height() / (120 * 160);
      assertThat(area).isBetween(0.07, 1.0);
    }
    // The loader's output for sample 3 is the box and flip its SampleRandom chooses, applied as
    // torchvision would: resized_crop, then hflip.
    VisionTransformHarness harness =
        new VisionTransformHarness("decode(rgb)|randomResizedCrop(32)|hflip|toUint8(hwc)");
    byte[] png = Goldens.bytes("photo.png");
    byte[] out = harness.run(png, 3);
    SampleRandom random = SampleRandom.of(5, 0, 3);
    CropBox box = crop.choose(120, 160, random);
    boolean flip = new HorizontalFlip(0.5).flips(random);
    Image expected =
        crop.resize(
            Goldens.decode(new ImageIoDecoder(), "photo.png", 3),
            box,
            1,
            new Image(),
            new Resampler());
    if (flip) {
      Crops.flipHorizontal(expected);
    }
    assertThat(out).isEqualTo(expected.copyPixels());
    assertThat(harness.run(png, 3)).isEqualTo(out);
  }

  @Test
  void shouldFallBackToTheCentralBoxAfterTenMisses() {
    RandomResizedCrop crop = new RandomResizedCrop(8, 8, 0.99, 1.0, 3.0, 4.0);
    // Every attempt wants a box 3 to 4 times wider than tall at ~all the area: none fits.
    CropBox box = crop.choose(120, 160, SampleRandom.of(1, 0, 0));
    assertThat(box).isEqualTo(new CropBox(33, 0, 53, 160)); // full width, h = round(160 / 3)
  }
}
