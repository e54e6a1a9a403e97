package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.state.LoaderState;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Variable-length fields through a per-sample transform, on both kinds of source: every sample
 * arrives once with its bytes, the random choices depend on (seed, epoch, sample key) only, bad
 * samples fail or are skipped, and a variable-length field never reaches a batch.
 */
class SampleTransformTest {
  private static final Schema INPUT =
      Schema.of(Field.variable("blob", DType.UINT8), Field.scalar("label", DType.INT64));
  private static final int SAMPLES = 103;

  /** Sample i's bytes: (i * 37) % 500 of them, a pattern of i; sample 7 has none. */
  static byte[] blob(long i) {
    byte[] bytes = new byte[(int) ((i * 37) % 500)];
    for (int j = 0; j < bytes.length; j++) {
      bytes[j] = (byte) (i * 31 + j * 7);
    }
    return bytes;
  }

  static long crc(byte[] bytes, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, length);
    return crc.getValue();
  }

  /** Writes the blob's length and CRC, a random draw, and passes the label through. */
  static final class Digest implements SampleTransform {
    private static final long serialVersionUID = 1L;
    private final long failOn;
    private final boolean error;

    Digest(long failOn, boolean error) {
      this.failOn = failOn;
      this.error = error;
    }

    Digest() {
      this(-1, false);
    }

    @Override
    public Schema outputSchema(Schema input) {
      if (!input.field(0).isVariable()) {
        throw new IllegalArgumentException("field 0: " + input.field(0) + " (expected: variable)");
      }
      return Schema.of(
          Field.scalar("length", DType.INT32),
          Field.scalar("crc", DType.INT64),
          Field.scalar("draw", DType.FLOAT64),
          Field.scalar("label", DType.INT64));
    }

    @Override
    public void apply(SampleInput in, SampleWriter out, SampleRandom random) {
      long label = in.value(1).getLong(0);
      if (label == failOn) {
        if (error) {
          throw new AssertionError("a transform's Error at label " + label);
        }
        throw new IllegalArgumentException("not an image: label " + label);
      }
      ByteBuffer blob = in.value(0);
      assertThat(blob.arrayOffset()).isZero();
      out.putInt(0, 0, blob.remaining());
      out.putLong(1, 0, crc(blob.array(), blob.remaining()));
      out.putDouble(2, 0, random.nextDouble());
      in.copyTo(1, out, 3);
    }
  }

  static final class BlobDataset implements MapDataset {
    @Override
    public Schema schema() {
      return INPUT;
    }

    @Override
    public int size() {
      return SAMPLES;
    }

    @Override
    public void write(int index, SampleWriter row) {
      byte[] bytes = blob(index);
      row.putVariable(0, bytes, 0, bytes.length);
      row.putLong(1, 0, index);
    }
  }

  /** The stream of every sample in order, in chunks of 10, its rows keyed by their label. */
  static final class BlobStream implements StreamedDataset {
    private final boolean keyed;

    BlobStream(boolean keyed) {
      this.keyed = keyed;
    }

    @Override
    public Schema schema() {
      return INPUT;
    }

    @Override
    public long rowCount() {
      return SAMPLES;
    }

    @Override
    public ChunkStream open(StreamRequest request) {
      return new ChunkStream() {
        private int next;

        @Override
        public ColumnChunk next() {
          if (next >= SAMPLES) {
            return null;
          }
          int first = next;
          int rows = Math.min(10, SAMPLES - first);
          next += rows;
          ByteBuffer labels = ByteBuffer.allocate(rows * 8).order(ByteOrder.nativeOrder());
          for (int r = 0; r < rows; r++) {
            labels.putLong(r * 8, first + r);
          }
          return new ColumnChunk() {
            @Override
            public int rows() {
              return rows;
            }

            @Override
            public void copyTo(int field, int fromRow, ColumnTarget target) {
              target.put(labels, fromRow * 8, target.bytes());
            }

            @Override
            public ByteBuffer variableValue(int field, int row) {
              return ByteBuffer.wrap(blob(first + row));
            }

            @Override
            public long rowKey(int row) {
              return keyed ? first + row : -1;
            }
          };
        }

        @Override
        public void close() {}
      };
    }
  }

  private record Row(long label, int length, long crc, double draw) {}

  private static List<Row> rows(DataLoader loader, int epoch) {
    List<Row> rows = new ArrayList<>();
    for (Batch batch : loader.epoch(epoch)) {
      try (batch) {
        for (int r = 0; r < batch.size(); r++) {
          rows.add(
              new Row(
                  batch.getLong(3, r, 0),
                  batch.getInt(0, r, 0),
                  batch.getLong(1, r, 0),
                  batch.getDouble(2, r, 0)));
        }
      }
    }
    return rows;
  }

  private static LoaderOptions.Builder options(int workers) {
    LoaderOptions.Builder options =
        LoaderOptions.builder().batchSize(8).numWorkers(workers).dropLast(true).shuffle(true);
    return (workers > 0 ? options.prefetchFactor(3) : options).seed(11);
  }

  private static void checkDigests(List<Row> rows, int expected) {
    assertThat(rows).hasSize(expected);
    assertThat(rows.stream().map(Row::label).distinct()).hasSize(expected);
    for (Row row : rows) {
      byte[] bytes = blob(row.label());
      assertThat(row.length()).isEqualTo(bytes.length);
      assertThat(row.crc()).isEqualTo(crc(bytes, bytes.length));
    }
  }

  @Test
  void shouldGiveEveryMapSampleOnceWithItsBytesAndTheSameDrawsForAnyWorkers() {
    List<List<Row>> runs = new ArrayList<>();
    for (int workers : new int[] {0, 1, 3}) {
      try (DataLoader loader =
          DataLoader.builder(new BlobDataset())
              .options(options(workers).build())
              .transform(new Digest())
              .build()) {
        assertThat(loader.layout().schema().names())
            .containsExactly("length", "crc", "draw", "label");
        List<Row> rows = rows(loader, 2);
        checkDigests(rows, SAMPLES / 8 * 8);
        runs.add(rows);
        assertThat(loader.metrics().last().transformNanos()).isPositive();
      }
    }
    assertThat(runs.get(1)).isEqualTo(runs.get(0));
    assertThat(runs.get(2)).isEqualTo(runs.get(0));
  }

  @Test
  void shouldDrawByTheSampleNotByItsPlaceSoAnotherEpochDrawsAnew() {
    try (DataLoader loader =
        DataLoader.builder(new BlobDataset())
            .options(options(2).build())
            .transform(new Digest())
            .build()) {
      List<Row> first = rows(loader, 0);
      List<Row> again = rows(loader, 0);
      List<Row> next = rows(loader, 1);
      assertThat(again).isEqualTo(first);
      Row sample = first.get(0);
      double draw =
          SampleRandom.of(11, 0, sample.label()).nextDouble(); // keyed by the dataset index
      assertThat(sample.draw()).isEqualTo(draw);
      Row sameInNext = next.stream().filter(r -> r.label() == sample.label()).findFirst().get();
      assertThat(sameInNext.draw()).isNotEqualTo(sample.draw());
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void shouldTransformEveryStreamedRowOnceTheSameForAnyWorkers(boolean keyed) {
    List<List<Row>> runs = new ArrayList<>();
    for (int workers : new int[] {0, 1, 3}) {
      try (DataLoader loader =
          DataLoader.builder(new BlobStream(keyed))
              .options(options(workers).build())
              .transform(new Digest())
              .build()) {
        List<Row> rows = rows(loader, 1);
        checkDigests(rows, SAMPLES / 8 * 8);
        runs.add(rows);
        Row row = rows.get(5);
        long key = keyed ? row.label() : row.label(); // in order: position = label, rank 0
        assertThat(row.draw()).isEqualTo(SampleRandom.of(11, 1, key).nextDouble());
      }
    }
    assertThat(runs.get(1)).isEqualTo(runs.get(0));
    assertThat(runs.get(2)).isEqualTo(runs.get(0));
  }

  @Test
  void shouldRefuseAVariableFieldWithoutATransformNamingTheRemedy() {
    assertThatThrownBy(
            () -> DataLoader.builder(new BlobDataset()).options(options(0).build()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'blob' uint8[*]")
        .hasMessageContaining("a batch holds fixed shapes only")
        .hasMessageContaining("transforms=");
  }

  @Test
  void shouldRefuseATransformWhoseOutputIsVariable() {
    SampleTransform identity =
        new SampleTransform() {
          @Override
          public Schema outputSchema(Schema input) {
            return input;
          }

          @Override
          public void apply(SampleInput in, SampleWriter out, SampleRandom random) {}
        };
    assertThatThrownBy(
            () ->
                DataLoader.builder(new BlobDataset())
                    .options(options(0).build())
                    .transform(identity)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'blob'")
        .hasMessageContaining("writes a variable-length field");
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void shouldFailTheBatchOfABadSampleOrSkipAndCountIt(boolean streamed) {
    for (OnBadSample mode : OnBadSample.values()) {
      DataLoader loader =
          (streamed
                  ? DataLoader.builder(new BlobStream(true))
                  : DataLoader.builder(new BlobDataset()))
              .options(options(2).shuffle(false).onBadSample(mode).build())
              .transform(new Digest(13, false))
              .build();
      if (mode == OnBadSample.FAIL) {
        assertThatThrownBy(() -> rows(loader, 0))
            .isInstanceOf(BatchLoadException.class)
            .hasMessageContaining("batch 1")
            .hasMessageContaining("not an image: label 13")
            .hasMessageContaining("onBadSample=skip");
      } else {
        List<Row> rows = rows(loader, 0);
        assertThat(rows).hasSize(SAMPLES / 8 * 8 - 1);
        assertThat(rows).noneMatch(r -> r.label() == 13);
        assertThat(loader.metrics().last().skippedCount()).isEqualTo(1);
        assertThat(loader.metrics().last().skipped().get(0).reason()).contains("label 13");
      }
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void shouldFailTheBatchOnATransformsErrorEvenWhenSkippingAndCloseCleanly(boolean streamed) {
    DataLoader loader =
        (streamed
                ? DataLoader.builder(new BlobStream(true))
                : DataLoader.builder(new BlobDataset()))
            .options(options(3).shuffle(false).onBadSample(OnBadSample.SKIP).build())
            .transform(new Digest(20, true))
            .build();
    assertThatThrownBy(() -> rows(loader, 0))
        .isInstanceOf(BatchLoadException.class)
        .hasMessageContaining("batch 2")
        .hasRootCauseInstanceOf(AssertionError.class);
    LoaderLeaks.closeAndCheck(loader);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1})
  void shouldRefusePutVariableOnAFixedFieldOrOfAPartialValue(int wrong) {
    MapDataset dataset =
        new MapDataset() {
          @Override
          public Schema schema() {
            return Schema.of(
                Field.variable("ids", DType.INT32), Field.scalar("label", DType.INT64));
          }

          @Override
          public int size() {
            return 4;
          }

          @Override
          public void write(int index, SampleWriter row) {
            if (wrong == 0) {
              row.putVariable(0, new byte[6], 0, 6);
            } else {
              row.putVariable(1, ByteBuffer.allocate(8));
            }
          }
        };
    try (DataLoader loader =
        DataLoader.builder(dataset)
            .options(options(0).shuffle(false).batchSize(2).build())
            .transform(new Digest())
            .build()) {
      assertThatThrownBy(() -> rows(loader, 0))
          .isInstanceOf(BatchLoadException.class)
          .hasMessageContaining(
              wrong == 0
                  ? "field 'ids' is int32[*]: a value of 6 bytes (expected: a multiple of 4)"
                  : "field 'label' is int64[]: putVariable is for variable-length fields");
    }
  }

  @Test
  void shouldGiveAResumedEpochTheSameAugmentedBatchesAsAnUninterruptedOne() {
    LoaderOptions options = options(2).build();
    Placement placement = Placement.of(1, 2);
    List<Row> whole;
    try (DataLoader uninterrupted =
        DataLoader.builder(new BlobDataset())
            .options(options)
            .placement(placement)
            .transform(new Digest())
            .build()) {
      whole = rows(uninterrupted, 3);
    }
    String saved;
    try (DataLoader first =
        DataLoader.builder(new BlobDataset())
            .options(options)
            .placement(placement)
            .transform(new Digest())
            .build()) {
      Iterator<Batch> epoch = first.epoch(3).iterator();
      for (int b = 0; b < 2; b++) {
        epoch.next().close();
      }
      saved = first.state().toString();
    }
    try (DataLoader resumed =
        DataLoader.builder(new BlobDataset())
            .options(options)
            .placement(placement)
            .transform(new Digest())
            .resumeFrom(LoaderState.parse(saved))
            .build()) {
      List<Row> rest = new ArrayList<>();
      Iterator<Batch> epoch = resumed.iterator();
      while (epoch.hasNext()) {
        try (Batch batch = epoch.next()) {
          if (batch.epoch() != 3) {
            break;
          }
          for (int r = 0; r < batch.size(); r++) {
            rest.add(
                new Row(
                    batch.getLong(3, r, 0),
                    batch.getInt(0, r, 0),
                    batch.getLong(1, r, 0),
                    batch.getDouble(2, r, 0)));
          }
        }
      }
      assertThat(rest).isEqualTo(whole.subList(16, whole.size()));
    }
  }
}
