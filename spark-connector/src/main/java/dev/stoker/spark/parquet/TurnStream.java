package dev.stoker.spark.parquet;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.util.Closer;
import java.util.List;

/**
 * A rank's streams of a {@link GlobalBatch}, taking turns: stream after stream, each giving its
 * {@link StreamPart#perTurn} rows, so that each batch of the rank is its share of one global batch,
 * in the streams' order. Each stream is a {@link RankStream} over one part, with its own shuffle
 * windows; a chunk of it is handed to the loader in pieces (each a {@link RankStream.WindowChunk}
 * over the same window), and the window is freed once the last piece is closed.
 */
public final class TurnStream implements ChunkStream {
  private final RankStream[] streams;
  private final int[] perTurn;
  private final Pieces[] current;
  private long left;
  private int stream;
  private int leftInTurn;

  private TurnStream(RankStream[] streams, int[] perTurn, long rows) {
    this.streams = streams;
    this.perTurn = perTurn;
    this.current = new Pieces[streams.length];
    this.left = rows;
    this.stream = streams.length - 1;
  }

  /**
   * The stream of {@code runs}: its streams taking turns if it has them ({@link
   * RankRuns#takesTurns}), else one {@link RankStream} (each window also handed to {@code sink},
   * may be null).
   */
  public static ChunkStream open(
      ReadConfig config,
      RankRuns runs,
      StreamRequest request,
      HostAllocator windows,
      SourceCounters counters,
      WindowSink sink) {
    if (!runs.takesTurns()) {
      return new RankStream(config, runs, request, windows, counters, sink);
    }
    List<StreamPart> parts = runs.parts();
    RankStream[] streams = new RankStream[parts.size()];
    int[] perTurn = new int[parts.size()];
    long rows = 0;
    try {
      for (int i = 0; i < streams.length; i++) {
        StreamPart part = parts.get(i);
        RankRuns one =
            new RankRuns(
                runs.rank(), part.slice().take(), part.runs(), List.of(part), null, runs.footers());
        streams[i] = new RankStream(config, one, request, windows, counters, null);
        perTurn[i] = part.perTurn();
        rows += part.slice().take();
      }
      if (rows != runs.rows()) {
        throw new IllegalStateException(
            "rank "
                + runs.rank()
                + ": its streams hold "
                + rows
                + " rows, its plan "
                + runs.rows());
      }
      return new TurnStream(streams, perTurn, rows);
    } catch (Throwable t) {
      Closer closer = new Closer().add(t);
      for (RankStream each : streams) {
        if (each != null) {
          closer.run(each::close);
        }
      }
      closer.throwIfAny();
      throw t;
    }
  }

  @Override
  public ColumnChunk next() throws Exception {
    while (left > 0) {
      if (leftInTurn == 0) {
        stream = (stream + 1) % streams.length;
        leftInTurn = perTurn[stream];
      }
      Pieces pieces = current[stream];
      if (pieces == null || pieces.handedOut()) {
        ColumnChunk chunk = streams[stream].next();
        if (chunk == null) {
          throw new IllegalStateException(
              "stream "
                  + stream
                  + " of the rank ended with "
                  + left
                  + " of its rows still due (expected: every stream to hold its share of every "
                  + "global batch)");
        }
        if (chunk.rows() == 0) {
          chunk.close();
          continue;
        }
        pieces = new Pieces((RankStream.WindowChunk) chunk);
        current[stream] = pieces;
      }
      int rows = Math.min(leftInTurn, pieces.remaining());
      leftInTurn -= rows;
      left -= rows;
      return pieces.take(rows);
    }
    return null;
  }

  /** Closes every stream; pieces of a chunk never handed out are let go. */
  @Override
  public void close() throws Exception {
    Closer closer = new Closer();
    for (Pieces pieces : current) {
      if (pieces != null) {
        closer.run(pieces::abandon);
      }
    }
    for (RankStream each : streams) {
      closer.run(each::close);
    }
    closer.throwIfAny();
  }

  /** A chunk handed out in pieces; closed once all are handed out and closed. */
  private static final class Pieces {
    private final RankStream.WindowChunk chunk;
    private int next;
    private int open;
    private boolean closed;

    Pieces(RankStream.WindowChunk chunk) {
      this.chunk = chunk;
    }

    synchronized int remaining() {
      return chunk.rows() - next;
    }

    synchronized boolean handedOut() {
      return next == chunk.rows();
    }

    synchronized RankStream.WindowChunk take(int rows) {
      int[] order = new int[rows];
      int[] whole = chunk.order();
      for (int i = 0; i < rows; i++) {
        order[i] = whole == null ? next + i : whole[next + i];
      }
      next += rows;
      open++;
      return new RankStream.WindowChunk(chunk.window(), rows, order, this::pieceClosed);
    }

    private void pieceClosed() {
      boolean last;
      synchronized (this) {
        open--;
        last = closeNow();
      }
      if (last) {
        chunk.close();
      }
    }

    /** Lets the rows not handed out go: the chunk closes once its open pieces are. */
    void abandon() {
      boolean last;
      synchronized (this) {
        next = chunk.rows();
        last = closeNow();
      }
      if (last) {
        chunk.close();
      }
    }

    /** Whether the chunk is to be closed now (once). */
    private boolean closeNow() {
      if (closed || open > 0 || next < chunk.rows()) {
        return false;
      }
      closed = true;
      return true;
    }
  }
}
