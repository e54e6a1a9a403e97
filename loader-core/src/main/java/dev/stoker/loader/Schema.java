package dev.stoker.loader;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The ordered, named fields of every sample of a dataset. Immutable. */
public final class Schema {
  private final List<Field> fields;
  private final Map<String, Integer> indexByName;

  private Schema(List<Field> fields) {
    if (fields == null) {
      throw new NullPointerException("schema fields: null (expected: at least one field)");
    }
    if (fields.isEmpty()) {
      throw new IllegalArgumentException("schema: no fields (expected: at least one field)");
    }
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      if (field == null) {
        throw new NullPointerException(
            "schema field "
                + i
                + " of "
                + fields.size()
                + ": null (expected: a Field, e.g. Field.of(\"x\", DType.FLOAT32, 3))");
      }
      if (index.putIfAbsent(field.name(), i) != null) {
        throw new IllegalArgumentException(
            "schema: field '" + field.name() + "' appears twice (expected: unique names)");
      }
    }
    this.fields = Collections.unmodifiableList(new ArrayList<>(fields));
    this.indexByName = index;
  }

  public static Schema of(Field... fields) {
    return new Schema(fields == null ? null : Arrays.asList(fields));
  }

  public static Schema of(List<Field> fields) {
    return new Schema(fields);
  }

  public int size() {
    return fields.size();
  }

  /**
   * The field at {@code index}.
   *
   * @throws IndexOutOfBoundsException if there is none, naming the index and the fields
   */
  public Field field(int index) {
    checkIndex(index);
    return fields.get(index);
  }

  /**
   * Checks a field index.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= index < size()}, naming the index and the
   *     fields there are
   */
  public void checkIndex(int index) {
    if (index < 0 || index >= fields.size()) {
      throw new IndexOutOfBoundsException(
          "field index: "
              + index
              + " (expected: 0 <= field "
              + "index < "
              + fields.size()
              + "; the fields: "
              + fields
              + ")");
    }
  }

  public List<Field> fields() {
    return fields;
  }

  /** The position of the named field; an error lists the names there are. */
  public int indexOf(String name) {
    Integer index = indexByName.get(name);
    if (index == null) {
      throw new IllegalArgumentException(
          "field: '" + name + "' (expected one of: " + String.join(", ", names()) + ")");
    }
    return index;
  }

  public Field field(String name) {
    return fields.get(indexOf(name));
  }

  public List<String> names() {
    List<String> names = new ArrayList<>(fields.size());
    for (Field field : fields) {
      names.add(field.name());
    }
    return names;
  }

  /** The first variable-length field, or null if every field has a fixed shape. */
  public Field firstVariable() {
    for (Field field : fields) {
      if (field.isVariable()) {
        return field;
      }
    }
    return null;
  }

  /** Bytes of one sample over all fields (variable-length ones count 0). */
  public long bytesPerSample() {
    long bytes = 0;
    for (Field field : fields) {
      bytes += field.bytesPerSample();
    }
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Schema other && fields.equals(other.fields);
  }

  @Override
  public int hashCode() {
    return fields.hashCode();
  }

  @Override
  public String toString() {
    return "Schema" + fields;
  }
}
