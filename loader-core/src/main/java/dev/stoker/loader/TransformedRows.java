package dev.stoker.loader;

import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.metrics.SkippedSample;
import java.nio.ByteBuffer;

/**
 * A stream's rows through a {@link SampleTransform}, one at a time: each row's fields are read from
 * its chunk into the thread's {@link SampleInput} (fixed fields copied, variable-length values
 * taken), then the transform writes the batch row. A sample the transform fails on fails the batch,
 * or with {@code onBadSample=skip} is left out and counted; a failed read always fails the batch,
 * since the stream's place is then in doubt.
 */
final class TransformedRows {
  /**
   * Bits of a row key that hold the row's position in the rank's stream, when the chunk has none.
   */
  private static final int POSITION_BITS = 40;

  private final String loader;
  private final int epoch;
  private final int rank;
  private final SampleStage stage;
  private final OnBadSample onBadSample;
  private final EpochCounters counters;
  private final ThreadLocal<SampleWriter> writers;

  TransformedRows(
      String loader,
      int epoch,
      int rank,
      SampleStage stage,
      OnBadSample onBadSample,
      EpochCounters counters,
      ThreadLocal<SampleWriter> writers) {
    this.loader = loader;
    this.epoch = epoch;
    this.rank = rank;
    this.stage = stage;
    this.onBadSample = onBadSample;
    this.counters = counters;
    this.writers = writers;
  }

  /**
   * Transforms rows {@code [from, from + count)} of {@code chunk} (stream rows from {@code
   * streamRow}) into the slot's rows from {@code row}; returns the next free row of the slot.
   */
  int write(
      ColumnChunk chunk,
      int from,
      int count,
      long streamRow,
      HostMemory slot,
      int row,
      ColumnTarget target,
      int batch)
      throws Exception {
    SampleInput in = stage.sampleInput();
    SampleWriter out = writers.get();
    for (int r = 0; r < count; r++) {
      long position = streamRow + r;
      long key = chunk.rowKey(from + r);
      in.begin(epoch, key >= 0 ? key : ((long) rank << POSITION_BITS) + position);
      read(chunk, from + r, in, target, batch, position);
      out.bind(slot, row);
      try {
        if (transform(in, out, batch, position)) {
          row++;
        }
      } finally {
        out.unbind();
      }
    }
    return row;
  }

  /** True if the sample was written, false if it was skipped. */
  private boolean transform(SampleInput in, SampleWriter out, int batch, long position) {
    long start = System.nanoTime();
    try {
      try {
        stage.apply(in, out);
      } finally {
        counters.addTransform(System.nanoTime() - start);
      }
      int missing = out.firstIncompleteField();
      if (missing >= 0) {
        Field field = out.schema().field(missing);
        throw new IllegalStateException(
            String.format(
                "the transform wrote %d of the %d values of field '%s' %s%s (expected: every value "
                    + "of every field)",
                out.writtenElements(missing),
                field.elements(),
                field.name(),
                field.dtype().label(),
                field.shapeText()));
      }
      return true;
    } catch (Exception e) {
      if (onBadSample == OnBadSample.SKIP) {
        counters.addSkipped(
            new SkippedSample(
                epoch, batch, (int) Math.min(position, Integer.MAX_VALUE), String.valueOf(e)));
        return false;
      }
      throw bad(batch, position, in, e, "; to skip bad samples, set onBadSample=skip");
    } catch (Throwable t) {
      throw bad(batch, position, in, t, "");
    }
  }

  private BatchLoadException bad(
      int batch, long position, SampleInput in, Throwable t, String remedy) {
    return new BatchLoadException(
        loader,
        Stage.FILL,
        epoch,
        batch,
        position,
        String.format(
            "transforming stream row %d (sample key %d) with %s: %s%s",
            position, in.key(), stage, t, remedy),
        t);
  }

  /** Reads every field of row {@code chunkRow} into {@code in}. */
  private void read(
      ColumnChunk chunk,
      int chunkRow,
      SampleInput in,
      ColumnTarget target,
      int batch,
      long position)
      throws Exception {
    Schema schema = in.schema();
    for (int f = 0; f < schema.size(); f++) {
      Field field = schema.field(f);
      try {
        if (field.isVariable()) {
          ByteBuffer value = chunk.variableValue(f, chunkRow);
          if (value == null) {
            throw new IllegalStateException(
                "variableValue(" + f + ", " + chunkRow + "): null (expected: the row's bytes)");
          }
          in.setVariable(f, value);
        } else {
          target.bind(in.record(), field, in.layout().rowOffset(f, 0), 1);
          try {
            chunk.copyTo(f, chunkRow, target);
            if (target.remaining() != 0) {
              throw new IllegalStateException(
                  String.format(
                      "the chunk wrote %d of %d bytes (expected: all of them)",
                      target.bytes() - target.remaining(), target.bytes()));
            }
          } finally {
            target.unbind();
          }
        }
      } catch (InterruptedException e) {
        throw e;
      } catch (Throwable t) {
        throw new BatchLoadException(
            loader,
            Stage.FILL,
            epoch,
            batch,
            position,
            String.format("reading field '%s' of stream row %d: %s", field.name(), position, t),
            t);
      }
    }
  }
}
