package dev.stoker.examples.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict little JSON reader for checking what the CLI writes: objects, arrays, strings, numbers,
 * literals.
 */
final class MiniJson {
  private final String text;
  private int at;

  private MiniJson(String text) {
    this.text = text;
  }

  static Object parse(String text) {
    MiniJson json = new MiniJson(text);
    Object value = json.value();
    json.space();
    if (json.at != text.length()) {
      throw json.error("trailing text");
    }
    return value;
  }

  private Object value() {
    space();
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(at);
    if (c == '{') {
      return object();
    } else if (c == '[') {
      return array();
    } else if (c == '"') {
      return string();
    } else if (text.startsWith("true", at)
        || text.startsWith("false", at)
        || text.startsWith("null", at)) {
      String word =
          text.startsWith("true", at) ? "true" : text.startsWith("false", at) ? "false" : "null";
      at += word.length();
      return word.equals("null") ? null : Boolean.valueOf(word);
    }
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    if (start == at) {
      throw error("unexpected character '" + c + "'");
    }
    return Double.parseDouble(text.substring(start, at));
  }

  private Map<String, Object> object() {
    Map<String, Object> map = new LinkedHashMap<>();
    expect('{');
    space();
    if (peek() == '}') {
      at++;
      return map;
    }
    do {
      space();
      String key = string();
      space();
      expect(':');
      if (map.put(key, value()) != null) {
        throw error("duplicate key " + key);
      }
      space();
    } while (take(','));
    expect('}');
    return map;
  }

  private List<Object> array() {
    List<Object> list = new ArrayList<>();
    expect('[');
    space();
    if (peek() == ']') {
      at++;
      return list;
    }
    do {
      list.add(value());
      space();
    } while (take(','));
    expect(']');
    return list;
  }

  private String string() {
    expect('"');
    StringBuilder s = new StringBuilder();
    while (peek() != '"') {
      char c = text.charAt(at++);
      if (c == '\\') {
        char e = text.charAt(at++);
        switch (e) {
          case 'n' -> s.append('\n');
          case 't' -> s.append('\t');
          case 'r' -> s.append('\r');
          case 'u' -> {
            s.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            at += 4;
          }
          default -> s.append(e);
        }
      } else if (c < 0x20) {
        throw error("control character in string");
      } else {
        s.append(c);
      }
    }
    at++;
    return s.toString();
  }

  private char peek() {
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    return text.charAt(at);
  }

  private boolean take(char c) {
    if (at < text.length() && text.charAt(at) == c) {
      at++;
      return true;
    }
    return false;
  }

  private void expect(char c) {
    if (!take(c)) {
      throw error("expected '" + c + "'");
    }
  }

  private void space() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(
        what
            + " at "
            + at
            + ": "
            + text.substring(Math.max(0, at - 20), Math.min(text.length(), at + 20)));
  }
}
