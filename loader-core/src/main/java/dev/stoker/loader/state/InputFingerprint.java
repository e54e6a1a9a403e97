package dev.stoker.loader.state;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a state's order was computed from: each input file's path, size and modification time (or,
 * for an in-memory dataset, its row count). A resume on input with another fingerprint would see
 * another order; {@link #check} says what changed.
 *
 * @param entries the input's parts, each once by name, in the input's order
 */
public record InputFingerprint(List<Entry> entries) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Most changes one message lists before it says how many more there are. */
  private static final int LISTED = 5;

  /**
   * One part of the input.
   *
   * @param name a file's path, or {@code rows} for an indexed dataset
   * @param size bytes of the file, or the dataset's rows
   * @param modified the file's modification time in ms since the epoch (0: not known), or {@link
   *     #VERSION} where {@code size} is a table's version
   */
  public record Entry(String name, long size, long modified) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The {@code modified} of an entry whose {@code size} is a table's version or snapshot id. */
    public static final long VERSION = -1;

    public Entry {
      Objects.requireNonNull(name, "name");
    }

    /** A table at {@code version} (a Delta version, an Iceberg snapshot id). */
    public static Entry version(String table, long version) {
      return new Entry(table, version, VERSION);
    }
  }

  public InputFingerprint {
    entries = List.copyOf(entries);
    Map<String, Entry> seen = new LinkedHashMap<>();
    for (Entry entry : entries) {
      if (seen.put(entry.name(), entry) != null) {
        throw new IllegalArgumentException(
            "input fingerprint: '" + entry.name() + "' twice (expected: each file once)");
      }
    }
  }

  /** The fingerprint of an in-memory dataset of {@code rows} rows. */
  public static InputFingerprint ofRows(long rows) {
    return new InputFingerprint(List.of(new Entry("rows", rows, 0)));
  }

  /**
   * Checks that {@code current}, the input resumed on, is this fingerprint's input.
   *
   * @throws InputChangedException naming each part added, removed or rewritten
   */
  public void check(InputFingerprint current) {
    List<String> changes = changesTo(current);
    if (changes.isEmpty()) {
      return;
    }
    StringBuilder message = new StringBuilder("the input changed since the state was taken: ");
    message.append(String.join("; ", changes.subList(0, Math.min(LISTED, changes.size()))));
    if (changes.size() > LISTED) {
      message.append("; and ").append(changes.size() - LISTED).append(" more change(s)");
    }
    message.append(
        " (expected: the same input, or its order is not the one the state was taken "
            + "in; to resume anyway, rows of the epoch possibly twice or never, set "
            + "acceptChangedInput=true)");
    throw new InputChangedException(message.toString());
  }

  /** The differences from this fingerprint to {@code current}, one phrase each. */
  public List<String> changesTo(InputFingerprint current) {
    Map<String, Entry> now = new LinkedHashMap<>();
    for (Entry entry : current.entries) {
      now.put(entry.name(), entry);
    }
    List<String> changes = new ArrayList<>();
    Map<String, Entry> before = new LinkedHashMap<>();
    for (Entry entry : entries) {
      before.put(entry.name(), entry);
      Entry later = now.get(entry.name());
      if (later == null) {
        changes.add("'" + entry.name() + "' removed");
      } else if (entry.modified() == Entry.VERSION && later.size() != entry.size()) {
        changes.add(
            entry.name() + " is at version " + later.size() + ", not " + entry.size() + " as then");
      } else if (later.size() != entry.size()) {
        changes.add(
            "'" + entry.name() + "' rewritten (size " + entry.size() + " -> " + later.size() + ")");
      } else if (later.modified() != entry.modified()) {
        changes.add(
            "'"
                + entry.name()
                + "' rewritten (modified "
                + entry.modified()
                + " -> "
                + later.modified()
                + ")");
      }
    }
    for (Entry entry : current.entries) {
      if (!before.containsKey(entry.name())) {
        changes.add("'" + entry.name() + "' added");
      }
    }
    return changes;
  }
}
