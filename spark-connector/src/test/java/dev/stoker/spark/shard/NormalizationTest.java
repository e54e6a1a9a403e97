package dev.stoker.spark.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Schema;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Normalization applied while the loader writes samples from a raw shard. */
class NormalizationTest {
  private static final ShardLayout LAYOUT =
      new ShardLayout(
          Schema.of(
              Field.of("img", DType.UINT8, 3, 2, 2), Field.of("f", DType.FLOAT32, 2, 3),
              Field.of("d", DType.FLOAT64, 2, 2), Field.scalar("id", DType.INT64)));
  private static final int ROWS = 7;
  private static final List<Normalization> NORMALIZE =
      List.of(
          Normalization.of("img", new double[] {0.5, 0.25, 0.125}, new double[] {0.5, 0.25, 2}),
          Normalization.of("f", new double[] {1}, new double[] {2}),
          Normalization.of("d", new double[] {0.5, -1}, new double[] {0.25, 3}));

  @TempDir Path temp;
  private ShardFiles files;
  private MappedShard shard;

  @BeforeEach
  void write() throws Exception {
    files = ShardFiles.create(temp.resolve("local"), "shard-0");
    ShardBlock block = ShardBlock.allocate(LAYOUT, 0, ROWS);
    ByteBuffer f = ByteBuffer.wrap(block.column(1)).order(ByteOrder.nativeOrder());
    ByteBuffer d = ByteBuffer.wrap(block.column(2)).order(ByteOrder.nativeOrder());
    ByteBuffer id = ByteBuffer.wrap(block.column(3)).order(ByteOrder.nativeOrder());
    for (int r = 0; r < ROWS; r++) {
      for (int e = 0; e < 12; e++) {
        block.column(0)[r * 12 + e] = (byte) pixel(r, e);
      }
      for (int e = 0; e < 6; e++) {
        f.putFloat((r * 6 + e) * 4, r + e * 0.5f);
      }
      for (int e = 0; e < 4; e++) {
        d.putDouble((r * 4 + e) * 8, r * 1.5 + e);
      }
      id.putLong(r * 8, r);
      block.added(1);
    }
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 1 << 20, "rank 0")) {
      writer.write(block);
      shard = writer.map(ROWS);
    }
  }

  @AfterEach
  void removed() {
    shard.release();
    files.delete();
  }

  /** Row 0 holds 0 and 255, the ends of the range; the others a spread of values. */
  private static int pixel(int row, int element) {
    return row == 0 ? (element % 2 == 0 ? 0 : 255) : (row * 37 + element * 21) % 256;
  }

  @Test
  void shouldDeliverFloat32ComputedAsTorchvisionDoesWhileTheShardStaysRaw() throws Exception {
    ShardDataset dataset = new ShardDataset(shard, ROWS, NORMALIZE);
    assertThat(dataset.schema().fields())
        .extracting(Field::toString)
        .containsExactly(
            Field.of("img", DType.FLOAT32, 3, 2, 2).toString(),
            Field.of("f", DType.FLOAT32, 2, 3).toString(),
            Field.of("d", DType.FLOAT32, 2, 2).toString(),
            Field.scalar("id", DType.INT64).toString());
    try (DataLoader loader =
        new DataLoader(dataset, LoaderOptions.builder().batchSize(3).numWorkers(2).build())) {
      assertThat(loader.layout().schema().field(0).dtype()).isEqualTo(DType.FLOAT32);
      int seen = 0;
      for (Batch batch : loader.epoch(0)) {
        for (int i = 0; i < batch.size(); i++, seen++) {
          int r = (int) batch.getLong(3, i, 0);
          float[] mean = {0.5f, 0.25f, 0.125f};
          float[] std = {0.5f, 0.25f, 2f};
          for (int e = 0; e < 12; e++) {
            int c = e / 4;
            assertThat(batch.getFloat(0, i, e))
                .as("img row %d element %d", r, e)
                .isEqualTo(((float) pixel(r, e) / 255f - mean[c]) / std[c]);
          }
          for (int e = 0; e < 6; e++) {
            assertThat(batch.getFloat(1, i, e)).isEqualTo((r + e * 0.5f - 1f) / 2f);
          }
          double[] dm = {0.5, -1};
          double[] ds = {0.25, 3};
          for (int e = 0; e < 4; e++) {
            assertThat(batch.getFloat(2, i, e))
                .isEqualTo((float) ((r * 1.5 + e - dm[e / 2]) / ds[e / 2]));
          }
          if (r == 0) { // by hand: (0 - 0.5) / 0.5, (1 - 0.5) / 0.5, (1 - 0.25) / 0.25, ...
            assertThat(
                    new float[] {
                      batch.getFloat(0, i, 0),
                      batch.getFloat(0, i, 1),
                      batch.getFloat(0, i, 5),
                      batch.getFloat(0, i, 8),
                      batch.getFloat(1, i, 0),
                      batch.getFloat(2, i, 2)
                    })
                .containsExactly(-1f, 1f, 3f, -0.0625f, -0.5f, 1f);
          }
        }
        batch.close();
      }
      assertThat(seen).isEqualTo(ROWS);
    }
    assertThat(shard.bytes()).isEqualTo(ROWS * (12 + 6 * 4 + 4 * 8 + 8));
    try (Stream<Path> columns = Files.list(files.folder())) {
      assertThat(columns.mapToLong(NormalizationTest::size).sum()).isEqualTo(shard.bytes());
    }
  }

  private static long size(Path path) {
    try {
      return Files.size(path);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void shouldRefuseValuesThatCannotNormalize() {
    assertThatThrownBy(() -> Normalization.of("img", new double[] {0.5}, new double[] {0.2, 0}))
        .hasMessage(
            "normalize 'img': std [0.2, 0.0] (expected: finite values > 0; a channel of "
                + "one value everywhere has std 0: leave it out of normalize, or give it std 1)");
    assertThatThrownBy(() -> Normalization.of("img", new double[] {Double.NaN}, new double[] {1}))
        .hasMessage("normalize 'img': mean [NaN] (expected: finite values)");
    assertThatThrownBy(() -> Normalization.of("img", new double[0], new double[] {1}))
        .hasMessage(
            "normalize 'img': mean [] (expected: one value per channel, or one for " + "all)");
    assertThatThrownBy(() -> Normalization.of("img", new double[] {1}, null))
        .hasMessage(
            "normalize 'img': std null (expected: one value per channel, or one for " + "all)");
    assertThatThrownBy(() -> Normalization.of(" ", new double[] {1}, new double[] {1}))
        .hasMessage("normalize: column ' ' (expected: the name of a tensor column)");
  }

  @Test
  void shouldRefuseColumnsItCannotApplyTo() {
    Normalization two = Normalization.of("x", new double[] {0, 0}, new double[] {1});
    assertThatThrownBy(() -> two.check(Field.of("x", DType.UINT8, 3, 4)))
        .hasMessage(
            "normalize 'x': mean of 2 values [0.0, 0.0] for 3 channels (shape [3,4]) "
                + "(expected: 3 values, one per channel of the first dimension, or 1 for every "
                + "channel)");
    assertThatThrownBy(() -> two.check(Field.scalar("x", DType.FLOAT32)))
        .hasMessage(
            "normalize 'x': a scalar column of float32 (expected: a tensor column whose "
                + "first dimension is its channels)");
    assertThatThrownBy(() -> two.check(Field.of("x", DType.INT32, 2, 4)))
        .hasMessage("normalize 'x': int32[2,4] (expected: a uint8, float32 or float64 tensor)");
    assertThatThrownBy(
            () ->
                new ShardDataset(
                    shard,
                    ROWS,
                    List.of(Normalization.of("nope", new double[] {1}, new double[] {1}))))
        .hasMessage(
            "normalize 'nope': no such column in the shard (expected: a declared tensor "
                + "column)");
  }
}
