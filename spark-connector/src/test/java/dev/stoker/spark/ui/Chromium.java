package dev.stoker.spark.ui;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's headless Chromium, run once per page: {@code --dump-dom} gives the page as the browser
 * rendered it (after its scripts ran), {@code --screenshot} a picture. No sandbox (tests run as
 * root), no background networking, a profile folder of its own removed afterwards.
 */
final class Chromium {
  private static final String[] CANDIDATES = {"/usr/bin/chromium", "/usr/bin/chromium-browser"};

  private Chromium() {}

  /** The browser, or null when it is not installed. */
  static Path find() {
    for (String candidate : CANDIDATES) {
      if (Files.isExecutable(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    return null;
  }

  /** The DOM of {@code url} as rendered. */
  static String dumpDom(String url) {
    return new String(run(List.of("--dump-dom", url)), StandardCharsets.UTF_8);
  }

  /** A PNG of {@code url} at {@code width} x {@code height} into {@code file}. */
  static void screenshot(String url, Path file, int width, int height) {
    run(
        List.of(
            "--hide-scrollbars",
            "--window-size=" + width + "," + height,
            "--screenshot=" + file.toAbsolutePath(),
            url));
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException("chromium wrote no screenshot to " + file);
    }
  }

  private static byte[] run(List<String> what) {
    Path browser = find();
    if (browser == null) {
      throw new IllegalStateException("chromium is not installed");
    }
    Path profile = null;
    try {
      profile = Files.createTempDirectory("stoker-chromium");
      Path out = profile.resolve("stdout");
      List<String> command =
          new ArrayList<>(
              List.of(
                  browser.toString(),
                  "--headless",
                  "--no-sandbox",
                  "--disable-gpu",
                  "--disable-dev-shm-usage",
                  "--disable-background-networking",
                  "--disable-component-update",
                  "--disable-sync",
                  "--disable-default-apps",
                  "--no-first-run",
                  "--user-data-dir=" + profile.resolve("p")));
      command.addAll(what);
      Process process =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(profile.resolve("stderr").toFile())
              .start();
      if (!process.waitFor(90, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor();
        throw new IllegalStateException("chromium did not end within 90 s: " + command);
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            "chromium exited with "
                + process.exitValue()
                + ": "
                + Files.readString(profile.resolve("stderr")));
      }
      return Files.readAllBytes(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while chromium ran", e);
    } finally {
      delete(profile);
    }
  }

  static void delete(Path folder) {
    if (folder == null) {
      return;
    }
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
