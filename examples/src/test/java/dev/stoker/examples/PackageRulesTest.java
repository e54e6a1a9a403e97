package dev.stoker.examples;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import dev.stoker.examples.demo.Mlp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The package rules that each {@code package-info.java} of the examples states, one rule per test.
 * Only main classes are checked: tests may reach across packages.
 */
class PackageRulesTest {

  private static final String EXAMPLES = "dev.stoker.examples";
  private static final String CLI = EXAMPLES + ".cli..";
  private static final String DATASOURCE = EXAMPLES + ".datasource..";
  private static final String DEMO = EXAMPLES + ".demo..";
  private static final String TORCH = EXAMPLES + ".torch..";

  /** The connector's public API: its root package alone, without the packages below it. */
  private static final String CONNECTOR_API = "dev.stoker.spark";

  private static final String LOADER = "dev.stoker.loader";

  /**
   * The loader's public API as its package-info gives it: the root package, the memory, device and
   * metrics types it hands out, and stats, built on it.
   */
  private static final String[] LOADER_API = {
    LOADER, LOADER + ".memory..", LOADER + ".device", LOADER + ".metrics..", LOADER + ".stats.."
  };

  private static final String TOOLS = "dev.stoker.tools";

  /** The tools' benchmarks: the loader's and the Spark ones (with the Python one's yardstick). */
  private static final String[] BENCHMARKS = {TOOLS + ".bench..", TOOLS + ".spark.."};

  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages(EXAMPLES);

  /** Each exact package of the examples is a slice of its own. */
  private static final SliceAssignment EACH_PACKAGE =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          String pkg = javaClass.getPackageName();
          if (pkg.equals(EXAMPLES) || pkg.startsWith(EXAMPLES + ".")) {
            return SliceIdentifier.of(pkg);
          }
          return SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
          return "each package of " + EXAMPLES;
        }
      };

  @Test
  void examplesShouldUseOnlyTheConnectorsPublicApi() {
    noClasses()
        .should()
        .dependOnClassesThat(insideOutside("dev.stoker.spark", CONNECTOR_API))
        .because(
            "the examples are jobs as users write them: StokerSpark, its data model and "
                + "format(\"stoker\"), never the runner, the Parquet stack, the rows path or the "
                + "DataSource's classes")
        .check(CLASSES);
  }

  @Test
  void examplesShouldUseOnlyTheLoadersPublicApi() {
    noClasses()
        .should()
        .dependOnClassesThat(insideOutside(LOADER, LOADER_API))
        .because(
            "the examples use the loader as users do: its root package, the memory, device "
                + "and metrics types it hands out and stats, never the pipeline, the samplers or "
                + "util")
        .check(CLASSES);
  }

  @Test
  void onlyTheCommandLineShouldRunTheBenchmarks() {
    noClasses()
        .that()
        .resideOutsideOfPackage(CLI)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(TOOLS + "..")
        .because("the benchmarks are stoker bench's; the jobs train as users do")
        .check(CLASSES);
  }

  @Test
  void theCommandLineShouldUseOnlyTheBenchmarksOfTheTools() {
    noClasses()
        .should()
        .dependOnClassesThat(insideOutside(TOOLS, BENCHMARKS))
        .because(
            "stoker bench runs the tools' benchmarks; the GPU check is a kit of its own "
                + "(scripts/gpu-check.sh), which the command line does not run")
        .check(CLASSES);
  }

  @Test
  void nothingButTheCommandLineShouldImportIt() {
    noClasses()
        .that()
        .resideOutsideOfPackage(CLI)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(CLI)
        .because(
            "the command line drives the jobs; the demo and the DataSource example run "
                + "without it")
        .check(CLASSES);
  }

  @Test
  void dataSourceExampleShouldUseOnlyTheDemosModel() {
    noClasses()
        .that()
        .resideInAPackage(DATASOURCE)
        .should()
        .dependOnClassesThat(
            resideInAPackage(DEMO)
                .and(not(belongToAnyOf(Mlp.class)))
                .as("reside in the demo apart from its model, Mlp"))
        .because(
            "the DataSource example shows the read API and trains the demo's model; the "
                + "demo's data, cache and job are no part of it")
        .check(CLASSES);
  }

  @Test
  void theFrameworkAdapterShouldNotImportSpark() {
    noClasses()
        .that()
        .resideInAPackage(TORCH)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.spark..", "dev.stoker.spark..", DEMO, CLI)
        .because(
            "the adapter shows how a loader's batches become tensors, with or without "
                + "Spark; the jobs use it, not the other way round")
        .check(CLASSES);
  }

  @Test
  void onlyTheAdapterAndTheJobsShouldUsePyTorch() {
    noClasses()
        .that()
        .resideOutsideOfPackages(TORCH, DEMO, CLI)
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.bytedeco..")
        .because(
            "PyTorch is the examples' optional framework: the DataSource example and the "
                + "shared helpers run without its natives")
        .check(CLASSES);
  }

  @Test
  void examplesShouldDrawHeadless() {
    noClasses()
        .should()
        .dependOnClassesThat(
            resideInAPackage("javax.swing..")
                .or(assignableTo(java.awt.Component.class))
                .as("are Swing or AWT components"))
        .because(
            "charts and plots are drawn into images and written to files with AWT "
                + "headless, on machines without a display")
        .check(CLASSES);
  }

  @Test
  void packagesShouldBeFreeOfCycles() {
    slices()
        .assignedFrom(EACH_PACKAGE)
        .should()
        .beFreeOfCycles()
        .because(
            "the command line uses the jobs and the jobs use the shared helpers, never the "
                + "other way round")
        .check(CLASSES);
  }

  @Test
  void everyPackageShouldHaveAPackageInfo() throws IOException {
    Path sources = Path.of("src", "main", "java");
    assertThat(sources).as("the examples' sources, from the module's directory").isDirectory();

    Set<String> packages = new TreeSet<>();
    CLASSES.forEach(c -> packages.add(c.getPackageName()));
    try (Stream<Path> files = Files.walk(sources.resolve(EXAMPLES.replace('.', '/')))) {
      files
          .filter(f -> f.toString().endsWith(".java"))
          .map(f -> sources.relativize(f.getParent()).toString().replace('/', '.'))
          .forEach(packages::add);
    }
    List<String> missing =
        packages.stream()
            .filter(p -> !Files.isRegularFile(packageInfo(sources, p)))
            .collect(Collectors.toList());

    assertThat(packages).contains(EXAMPLES, EXAMPLES + ".cli");
    assertThat(missing)
        .as(
            "packages without a package-info.java that says what lives there and what it must "
                + "not import")
        .isEmpty();
  }

  private static Path packageInfo(Path sources, String pkg) {
    return sources.resolve(pkg.replace('.', '/')).resolve("package-info.java");
  }

  /** Classes in {@code root} or below it, outside the given packages (each a package pattern). */
  private static DescribedPredicate<JavaClass> insideOutside(String root, String... allowed) {
    return resideInAPackage(root + "..")
        .and(not(resideInAnyPackage(allowed)))
        .as("reside in %s outside %s", root, String.join(", ", allowed));
  }
}
