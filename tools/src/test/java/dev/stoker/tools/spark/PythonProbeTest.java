package dev.stoker.tools.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The probe of a benchmark's Python, on this machine's python3. */
class PythonProbeTest {

  @Test
  void shouldSayNothingWhenEveryModuleImports() {
    assertThat(PythonProbe.missing("python3", List.of("json", "os.path"), "remedy")).isNull();
  }

  @Test
  void shouldNameTheModuleThatDoesNotImportAndTheRemedyInOneLine() {
    String missing =
        PythonProbe.missing("python3", List.of("json", "stoker_no_such_module"), "pip install it");

    assertThat(missing)
        .startsWith("python3 cannot import json and stoker_no_such_module: ")
        .contains("No module named 'stoker_no_such_module'")
        .endsWith("(pip install it)")
        .doesNotContain("\n");
  }

  @Test
  void shouldSayWhenThePythonCannotBeRun() {
    assertThat(PythonProbe.missing("/nonexistent/python3", List.of("json"), "remedy"))
        .startsWith("/nonexistent/python3 cannot be run: ")
        .endsWith("(set STOKER_PYTHON)");
  }

  @Test
  void shouldListNamesAsASentence() {
    assertThat(PythonProbe.names(List.of("a"))).isEqualTo("a");
    assertThat(PythonProbe.names(List.of("a", "b"))).isEqualTo("a and b");
    assertThat(PythonProbe.names(List.of("a", "b", "c"))).isEqualTo("a, b and c");
  }
}
