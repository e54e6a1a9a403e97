package dev.stoker.examples.notebook;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A notebook in Databricks source format, cut into its cells: the first line is {@value #HEADER},
 * cells are separated by {@value #SEPARATOR} lines, and a markdown cell has every line starting
 * with {@value #MAGIC}, its first {@value #MARKDOWN}. Parsing keeps what it finds; {@link
 * #problems()} says where the file departs from the format.
 */
final class NotebookSource {
  static final String HEADER = "// Databricks notebook source";
  static final String SEPARATOR = "// COMMAND ----------";
  static final String MAGIC = "// MAGIC";
  static final String MARKDOWN = "// MAGIC %md";

  /** One cell: its number (from 1), the file line it starts on (from 1), and its text. */
  record Cell(int number, int line, boolean markdown, String text) {
    String firstLine() {
      return text.strip().lines().findFirst().orElse("");
    }

    @Override
    public String toString() {
      return "cell "
          + number
          + " (line "
          + line
          + ", "
          + (markdown ? "markdown" : "code")
          + ": '"
          + firstLine()
          + "')";
    }
  }

  private final Path file;
  private final List<Cell> cells = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();

  private NotebookSource(Path file, List<String> lines) {
    this.file = file;
    if (lines.isEmpty() || !lines.get(0).equals(HEADER)) {
      problems.add(
          "line 1: '"
              + (lines.isEmpty() ? "" : lines.get(0))
              + "' (expected: '"
              + HEADER
              + "', or Databricks imports the file as a plain script)");
    }
    int start = 1;
    for (int i = 1; i <= lines.size(); i++) {
      if (i == lines.size() || lines.get(i).equals(SEPARATOR)) {
        addCell(lines.subList(Math.min(start, i), i), start + 1);
        start = i + 1;
      } else if (lines.get(i).strip().equals(SEPARATOR) || lines.get(i).startsWith("// COMMAND")) {
        problems.add(
            "line "
                + (i + 1)
                + ": '"
                + lines.get(i)
                + "' (expected: exactly '"
                + SEPARATOR
                + "' to separate cells)");
      }
    }
  }

  static NotebookSource read(Path file) throws IOException {
    return new NotebookSource(file, Files.readAllLines(file, StandardCharsets.UTF_8));
  }

  private void addCell(List<String> lines, int firstLine) {
    int from = 0;
    int to = lines.size();
    while (from < to && lines.get(from).isBlank()) {
      from++;
    }
    while (to > from && lines.get(to - 1).isBlank()) {
      to--;
    }
    Cell cell =
        new Cell(
            cells.size() + 1,
            firstLine + from,
            !lines.isEmpty() && from < to && lines.get(from).startsWith(MAGIC),
            String.join("\n", lines.subList(from, to)));
    cells.add(cell);
    if (from == to) {
      problems.add(
          cell + ": empty (expected: code or markdown; Databricks shows it as a blank " + "cell)");
      return;
    }
    if (cell.markdown()) {
      if (!lines.get(from).equals(MARKDOWN)) {
        problems.add(
            cell
                + ": starts with '"
                + lines.get(from)
                + "' (expected: '"
                + MARKDOWN
                + "' for a markdown cell)");
      }
      for (int i = from; i < to; i++) {
        String line = lines.get(i);
        if (!line.equals(MAGIC) && !line.startsWith(MAGIC + " ")) {
          problems.add(
              "line "
                  + (firstLine + i)
                  + " in "
                  + cell
                  + ": '"
                  + line
                  + "' (expected: every line of a markdown cell to start with '"
                  + MAGIC
                  + " ')");
        }
      }
    } else {
      for (int i = from; i < to; i++) {
        if (lines.get(i).startsWith(MAGIC)) {
          problems.add(
              "line "
                  + (firstLine + i)
                  + " in "
                  + cell
                  + ": '"
                  + lines.get(i)
                  + "' (expected: MAGIC lines only in a cell that starts with '"
                  + MARKDOWN
                  + "')");
        }
      }
    }
  }

  Path file() {
    return file;
  }

  List<Cell> cells() {
    return cells;
  }

  List<Cell> codeCells() {
    return cells.stream().filter(c -> !c.markdown()).toList();
  }

  List<Cell> markdownCells() {
    return cells.stream().filter(Cell::markdown).toList();
  }

  /** Where the file departs from the format, one line each; empty if it does not. */
  List<String> problems() {
    return problems;
  }
}
