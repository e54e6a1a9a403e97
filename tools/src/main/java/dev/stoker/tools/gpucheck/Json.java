package dev.stoker.tools.gpucheck;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Writes maps, lists, strings, numbers, booleans and nulls as indented JSON. */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, "");
    return out.append('\n').toString();
  }

  private static void write(StringBuilder out, Object value, String indent) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      quote(out, s);
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      out.append(
          Double.isFinite(d)
              ? new BigDecimal(d).round(new MathContext(6)).stripTrailingZeros().toPlainString()
              : "null");
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else if (value instanceof Map<?, ?> map) {
      writeMap(out, map, indent);
    } else if (value instanceof List<?> list) {
      writeList(out, list, indent);
    } else {
      quote(out, value.toString());
    }
  }

  private static void writeMap(StringBuilder out, Map<?, ?> map, String indent) {
    if (map.isEmpty()) {
      out.append("{}");
      return;
    }
    String inner = indent + "  ";
    out.append("{\n");
    Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<?, ?> e = it.next();
      out.append(inner);
      quote(out, String.valueOf(e.getKey()));
      out.append(": ");
      write(out, e.getValue(), inner);
      out.append(it.hasNext() ? ",\n" : "\n");
    }
    out.append(indent).append('}');
  }

  private static void writeList(StringBuilder out, List<?> list, String indent) {
    if (list.isEmpty()) {
      out.append("[]");
      return;
    }
    String inner = indent + "  ";
    out.append("[\n");
    for (int i = 0; i < list.size(); i++) {
      out.append(inner);
      write(out, list.get(i), inner);
      out.append(i + 1 < list.size() ? ",\n" : "\n");
    }
    out.append(indent).append(']');
  }

  private static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
