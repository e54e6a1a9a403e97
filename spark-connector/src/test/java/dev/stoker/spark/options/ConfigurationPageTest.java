package dev.stoker.spark.options;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The reference page, {@code docs/configuration.md}, is the option table's: regenerated here, it
 * must equal the committed file. With {@code -Dstoker.docs.write=true} the test rewrites it.
 */
class ConfigurationPageTest {
  /** The page from the module's directory, where the tests run. */
  private static final Path PAGE = Path.of("..").resolve(ConfigurationPage.PATH);

  private static final String HOW =
      "run `mvn -pl spark-connector -am verify "
          + "-Dtest=ConfigurationPageTest -Dsurefire.failIfNoSpecifiedTests=false "
          + "-Dstoker.docs.write=true` and commit the page";

  @Test
  void shouldMatchTheOptionTable() throws IOException {
    String generated = ConfigurationPage.markdown();
    if (Boolean.getBoolean("stoker.docs.write")) {
      Files.writeString(PAGE, generated, StandardCharsets.UTF_8);
    }
    assertThat(PAGE).as("docs/configuration.md is missing: " + HOW).isRegularFile();
    String committed = Files.readString(PAGE, StandardCharsets.UTF_8);
    assertThat(committed.equals(generated))
        .as(
            "docs/configuration.md is out of date: "
                + HOW
                + " (the first difference is at "
                + "character "
                + firstDifference(committed, generated)
                + ")")
        .isTrue();
  }

  @Test
  void shouldListEveryOptionUnderEachOfItsLayers() {
    String page = ConfigurationPage.markdown();
    for (OptionSpec spec : OptionRegistry.all()) {
      String name = spec.isPrefix() ? spec.name() + "<column>" : spec.name();
      String cell = "\\| `(spark\\.stoker\\.)?" + name.replace(".", "\\.") + "` \\|";
      assertThat(page.split(cell, -1)).as(name).hasSize(spec.layers().size() + 1);
    }
    assertThat(page)
        .contains("| `batchSize` | int > 0 | `1` | loader | Samples per batch. |")
        .contains("| `cache` | auto\\|memory\\|disk\\|none | `auto` | run |")
        .contains("| `verifyChecksums` | true\\|false | `true` | source, run |");
  }

  private static int firstDifference(String a, String b) {
    int i = 0;
    while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    return i;
  }
}
