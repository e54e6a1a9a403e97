package dev.stoker.spark.options;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The reference page of every option, {@code docs/configuration.md}, written from {@link
 * SparkOptionTable}: a Markdown table per layer (name, values, default, layers, what it does). The
 * page is generated, never edited: a test regenerates it and fails when the committed file differs.
 * {@link #main} writes it.
 */
public final class ConfigurationPage {
  /** The page's path from the root of the repository. */
  public static final String PATH = "docs/configuration.md";

  private ConfigurationPage() {}

  /** Writes the page to {@code args[0]}, else to {@link #PATH} under the working directory. */
  public static void main(String[] args) throws IOException {
    Path target = Path.of(args.length > 0 ? args[0] : PATH);
    Files.writeString(target, markdown(), StandardCharsets.UTF_8);
    System.out.println("wrote " + target);
  }

  /** The page, from the table. */
  public static String markdown() {
    StringBuilder page = new StringBuilder();
    page.append("# Configuration\n\n")
        .append("<!-- Generated from Stoker's option table by ")
        .append(ConfigurationPage.class.getName())
        .append(": do not edit. ")
        .append("ConfigurationPageTest fails when this page and the table differ. -->\n\n")
        .append("Every option of Stoker, by who reads it. Names ignore case. A ")
        .append("`format(\"stoker\")` read or a `StokerSpark` run takes each option as given to ")
        .append("it, else the session's `spark.stoker.<name>` setting ")
        .append("(`spark.conf.set(\"spark.stoker.batchSize\", \"64\")`, or `--conf` at submit), ")
        .append("else its default; a `spark.stoker.*` setting that names no option is an error ")
        .append("that suggests the closest name. Sizes take a binary unit (`512m`, `4g`), ")
        .append("durations a unit (`ns`, `us`, `ms`, `s`, `m`, `min`, `h`; digits alone are ")
        .append("milliseconds). A bad value is an error that names the option, the value and ")
        .append("what is expected.\n");
    for (OptionLayer layer : OptionLayer.values()) {
      page.append("\n## ")
          .append(layer.title())
          .append("\n\n")
          .append(layer.description())
          .append("\n\n")
          .append("| name | values | default | layers | what it does |\n")
          .append("|---|---|---|---|---|\n");
      for (OptionSpec spec : SparkOptionTable.ALL) {
        if (spec.layers().contains(layer)) {
          page.append(row(spec));
        }
      }
    }
    return page.toString();
  }

  private static String row(OptionSpec spec) {
    String name =
        spec.isPrefix()
            ? spec.name() + "<column>"
            : spec.layers().equals(Set.of(OptionLayer.SETTING))
                ? OptionRegistry.setting(spec.option())
                : spec.name();
    String value =
        spec.option().defaultValue() != null
            ? "`" + spec.defaultValue() + "`"
            : spec.defaultValue();
    List<String> cells = List.of("`" + name + "`", spec.type(), value, layers(spec), spec.doc());
    return cells.stream()
        .map(ConfigurationPage::cell)
        .collect(Collectors.joining(" | ", "| ", " |\n"));
  }

  private static String layers(OptionSpec spec) {
    return spec.layers().stream()
        .map(l -> l.name().toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(", "));
  }

  /** A table cell: a pipe would end it. */
  private static String cell(String text) {
    return text.replace("|", "\\|");
  }
}
