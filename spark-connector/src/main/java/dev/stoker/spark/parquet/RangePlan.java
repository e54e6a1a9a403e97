package dev.stoker.spark.parquet;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The requests that read a file's column chunks, row group after row group: chunks whose gap is at
 * most {@code coalesceGapBytes} read in one request (up to {@code requestBytes}), longer chunks in
 * several. Within a group the requests are ordered by how far into its chunk each starts, which is
 * the order the columns, decoded side by side, need them: every column's first bytes, then their
 * next.
 */
final class RangePlan {
  /**
   * One request: {@code range} of the file, in row group {@code group}, overlapping the chunks at
   * indices {@code chunks} of the plan.
   */
  record Request(FileRange range, int group, int[] chunks) {}

  private final List<FileRange> chunks = new ArrayList<>();
  private final List<Integer> chunkGroups = new ArrayList<>();
  private final List<Request> requests = new ArrayList<>();

  private RangePlan() {}

  /** The plan for {@code groups}' chunk ranges, each list one row group's. */
  static RangePlan of(List<List<FileRange>> groups, long coalesceGapBytes, int requestBytes) {
    RangePlan plan = new RangePlan();
    for (int g = 0; g < groups.size(); g++) {
      int first = plan.chunks.size();
      for (FileRange chunk : groups.get(g)) {
        plan.chunks.add(chunk);
        plan.chunkGroups.add(g);
      }
      plan.planGroup(g, first, coalesceGapBytes, requestBytes);
    }
    return plan;
  }

  private void planGroup(int group, int first, long gap, int requestBytes) {
    List<Integer> order = new ArrayList<>();
    for (int c = first; c < chunks.size(); c++) {
      if (chunks.get(c).length() > 0) {
        order.add(c);
      }
    }
    order.sort(Comparator.comparingLong(c -> chunks.get(c).start()));
    List<Request> planned = new ArrayList<>();
    long start = -1;
    long end = -1;
    List<Integer> members = new ArrayList<>();
    for (int c : order) {
      FileRange chunk = chunks.get(c);
      long mergedEnd = Math.max(end, chunk.end());
      if (start >= 0 && chunk.start() - end <= gap && mergedEnd - start <= requestBytes) {
        end = mergedEnd;
        members.add(c);
        continue;
      }
      long at = chunk.start();
      if (start >= 0) {
        if (chunk.start() < end) {
          // overlapping chunks (a malformed file): the bytes already asked for stay asked for once
          members.add(c);
          at = Math.min(end, chunk.end());
        }
        if (end > start) {
          planned.add(request(start, end, group, members));
        }
      }
      members = new ArrayList<>(List.of(c));
      if (chunk.end() - at > requestBytes) {
        // a chunk longer than a request: read in pieces of its own, merged with no other
        for (; at < chunk.end(); at += requestBytes) {
          planned.add(request(at, Math.min(chunk.end(), at + requestBytes), group, members));
        }
        start = -1;
        end = -1;
        members = new ArrayList<>();
        continue;
      }
      start = at;
      end = chunk.end();
    }
    if (start >= 0 && end > start) {
      planned.add(request(start, end, group, members));
    }
    planned.sort(
        Comparator.comparingLong((Request r) -> r.range().start() - chunkStart(r))
            .thenComparingLong(r -> r.range().start()));
    requests.addAll(planned);
  }

  private long chunkStart(Request request) {
    return chunks.get(request.chunks()[0]).start();
  }

  private static Request request(long start, long end, int group, List<Integer> members) {
    return new Request(
        new FileRange(start, end), group, members.stream().mapToInt(Integer::intValue).toArray());
  }

  /** The requests, in the order they are to be made. */
  List<Request> requests() {
    return requests;
  }

  /** The chunk at index {@code c}. */
  FileRange chunk(int c) {
    return chunks.get(c);
  }

  /** How many chunks the plan reads. */
  int chunkCount() {
    return chunks.size();
  }

  /** The row group of chunk {@code c}. */
  int group(int c) {
    return chunkGroups.get(c);
  }
}
