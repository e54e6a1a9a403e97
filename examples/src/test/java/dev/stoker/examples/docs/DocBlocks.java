package dev.stoker.examples.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The fenced code blocks of the project's Markdown files, each with the snippet comment that
 * precedes it, if any:
 *
 * <pre>
 * &lt;!-- snippet: method
 * imports: dev.stoker.loader.*, java.nio.ByteBuffer
 * given: Dataset&lt;Row&gt; df; int rank
 * extra: void train(ByteBuffer b, int n) {}
 * --&gt;
 * </pre>
 *
 * <p>The first line names the kind ({@code method}, {@code class}, {@code members}, {@code run},
 * {@code syntax-only}); each further line is {@code key: value}, a key given on several lines
 * keeping every line. The comment must stand right before the block's opening fence.
 */
final class DocBlocks {
  /** The files whose blocks are tested, relative to the repository's root. */
  static final List<String> ROOT_FILES =
      List.of("README.md", "CONTRIBUTING.md", "python/README.md");

  /**
   * One fenced block.
   *
   * @param file the file, relative to the repository's root
   * @param line the 1-based line of the block's first line of code (after the fence)
   * @param language the fence's language, or "" when it names none
   * @param code the block's text
   * @param kind the snippet comment's kind, or null without a comment
   * @param keys the snippet comment's keys, each with its lines
   */
  record Block(
      String file,
      int line,
      String language,
      String code,
      String kind,
      Map<String, List<String>> keys) {

    /** Where the block is, as {@code file:line}. */
    String where() {
      return file + ":" + line;
    }

    /** The lines of {@code key}, or none. */
    List<String> key(String key) {
      return keys.getOrDefault(key, List.of());
    }

    /** The values of {@code key}, its lines split at {@code separator} and trimmed. */
    List<String> values(String key, String separator) {
      List<String> values = new ArrayList<>();
      for (String line : key(key)) {
        for (String value : line.split(separator)) {
          if (!value.isBlank()) {
            values.add(value.strip());
          }
        }
      }
      return values;
    }
  }

  private DocBlocks() {}

  /** The repository's root: the first folder up from the working directory with a docs/ folder. */
  static Path root() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))) {
        return dir;
      }
    }
    throw new IllegalStateException(
        "no folder with README.md and docs/ above " + Path.of("").toAbsolutePath());
  }

  /** Every Markdown file tested: {@link #ROOT_FILES} and every {@code .md} under docs/. */
  static List<Path> files(Path root) {
    List<Path> files = new ArrayList<>();
    for (String file : ROOT_FILES) {
      files.add(root.resolve(file));
    }
    try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
      files.addAll(
          docs.filter(p -> p.toString().endsWith(".md")).sorted().collect(Collectors.toList()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** Every fenced block of every file tested. */
  static List<Block> all(Path root) {
    List<Block> blocks = new ArrayList<>();
    for (Path file : files(root)) {
      blocks.addAll(read(root, file));
    }
    return blocks;
  }

  /** The fenced blocks of {@code file}. */
  static List<Block> read(Path root, Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    String name = root.relativize(file).toString().replace('\\', '/');
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String stripped = line.strip();
      if (!stripped.startsWith("```")) {
        continue;
      }
      String indent = line.substring(0, line.indexOf('`'));
      String language = stripped.substring(3).strip();
      int start = i + 1;
      int end = start;
      while (end < lines.size() && !lines.get(end).strip().equals("```")) {
        end++;
      }
      if (end == lines.size()) {
        throw new IllegalStateException(name + ":" + (i + 1) + ": a fenced block that never ends");
      }
      StringBuilder code = new StringBuilder();
      for (int j = start; j < end; j++) {
        String text = lines.get(j);
        code.append(text.startsWith(indent) ? text.substring(indent.length()) : text).append('\n');
      }
      String kind = null;
      Map<String, List<String>> keys = new LinkedHashMap<>();
      if (i > 0 && lines.get(i - 1).strip().equals("-->")) {
        int open = i - 2;
        while (open >= 0 && !lines.get(open).strip().startsWith("<!--")) {
          open--;
        }
        String first = open >= 0 ? lines.get(open).strip() : "";
        if (!first.startsWith("<!-- snippet:")) {
          throw new IllegalStateException(
              name
                  + ":"
                  + (i + 1)
                  + ": the comment before this block "
                  + "is no snippet comment (expected: <!-- snippet: KIND)");
        }
        kind = first.substring("<!-- snippet:".length()).strip();
        for (int j = open + 1; j < i - 1; j++) {
          String entry = lines.get(j);
          int colon = entry.indexOf(':');
          if (colon < 0) {
            throw new IllegalStateException(
                name
                    + ":"
                    + (j + 1)
                    + ": expected 'key: value' in "
                    + "a snippet comment, got '"
                    + entry
                    + "'");
          }
          keys.computeIfAbsent(entry.substring(0, colon).strip(), k -> new ArrayList<>())
              .add(entry.substring(colon + 1));
        }
      }
      blocks.add(new Block(name, start + 1, language, code.toString(), kind, keys));
      i = end;
    }
    return blocks;
  }
}
