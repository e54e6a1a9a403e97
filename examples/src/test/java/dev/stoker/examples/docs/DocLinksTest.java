package dev.stoker.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every relative link and image of the README and the docs points at a file of the repository, and
 * every {@code #anchor} at a heading of its page (GitHub's anchors: the heading in lower case,
 * punctuation dropped, spaces as dashes).
 */
class DocLinksTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*)$");

  @Test
  void everyRelativeLinkPointsAtAFileAndAHeading() throws IOException {
    Path root = DocBlocks.root();
    List<String> broken = new ArrayList<>();
    for (Path file : DocBlocks.files(root)) {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      boolean inFence = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.strip().startsWith("```")) {
          inFence = !inFence;
          continue;
        }
        if (inFence) {
          continue;
        }
        Matcher m = LINK.matcher(line);
        while (m.find()) {
          String problem = check(file, m.group(1));
          if (problem != null) {
            broken.add(root.relativize(file) + ":" + (i + 1) + ": " + m.group(1) + ": " + problem);
          }
        }
      }
    }
    assertThat(broken).as("broken links").isEmpty();
  }

  private static String check(Path file, String target) throws IOException {
    if (target.matches("^[a-z]+:.*")) {
      return null; // https:, mailto: ...
    }
    int hash = target.indexOf('#');
    String path = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    Path linked = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
    if (!Files.exists(linked)) {
      return "no such file";
    }
    if (anchor != null && !anchors(linked).contains(anchor)) {
      return "no heading with that anchor in " + linked.getFileName();
    }
    return null;
  }

  /** GitHub's anchors of a Markdown file's headings. */
  static Set<String> anchors(Path file) throws IOException {
    Set<String> anchors = new HashSet<>();
    boolean inFence = false;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.strip().startsWith("```")) {
        inFence = !inFence;
      }
      Matcher m = HEADING.matcher(line);
      if (!inFence && m.matches()) {
        anchors.add(anchor(m.group(1)));
      }
    }
    return anchors;
  }

  /** The anchor GitHub makes of a heading. */
  static String anchor(String heading) {
    String text = heading.strip().toLowerCase(Locale.ROOT);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        out.append(c);
      } else if (c == ' ') {
        out.append('-');
      }
    }
    return out.toString();
  }
}
