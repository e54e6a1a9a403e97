package dev.stoker.tools;

import static com.tngtech.archunit.base.DescribedPredicate.not;
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
 * The package rules that each {@code package-info.java} of the tools states, one rule per test, and
 * the one rule the libraries keep toward the tools: they import none of them. Only main classes are
 * checked (the tools' and, for that last rule, loader-core's and the connector's, as the tools'
 * class path holds them): tests may reach across packages.
 */
class PackageRulesTest {

  private static final String TOOLS = "dev.stoker.tools";
  private static final String BENCH = TOOLS + ".bench..";
  private static final String GPU_CHECK = TOOLS + ".gpucheck..";
  private static final String GPU_CHECK_DEVICE = TOOLS + ".gpucheck.device..";

  /** The Spark benchmarks' own package alone; {@link #SPARK_TOOLS} is it with the yardstick. */
  private static final String SPARK_BENCH = TOOLS + ".spark";

  private static final String SPARK_TOOLS = TOOLS + ".spark..";
  private static final String YARDSTICK = TOOLS + ".spark.python..";

  private static final String LOADER = "dev.stoker.loader";
  private static final String PIPELINE = LOADER + ".pipeline..";

  private static final String CONNECTOR = "dev.stoker.spark";

  /** The connector's public API: its root package alone. */
  private static final String CONNECTOR_API = CONNECTOR;

  private static final String SOURCE = CONNECTOR + ".source..";
  private static final String PARQUET = CONNECTOR + ".parquet..";
  private static final String COLLECTIVE = CONNECTOR + ".collective..";

  /** Test classes, in a module's test-classes folder or a test-jar, are not checked. */
  private static final ImportOption NO_TEST_JARS = location -> !location.contains("-tests.jar");

  /** The tools and the libraries they are built on. */
  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(NO_TEST_JARS)
          .importPackages(TOOLS, LOADER, CONNECTOR);

  /** Each exact package of the tools is a slice of its own. */
  private static final SliceAssignment EACH_PACKAGE =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          String pkg = javaClass.getPackageName();
          if (pkg.startsWith(TOOLS + ".")) {
            return SliceIdentifier.of(pkg);
          }
          return SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
          return "each package of " + TOOLS;
        }
      };

  @Test
  void theLibrariesShouldNotImportTheTools() {
    assertThat(
            CLASSES.contain("dev.stoker.loader.DataLoader")
                && CLASSES.contain("dev.stoker.spark.StokerSpark"))
        .as("loader-core's and the connector's classes are imported, from the class path")
        .isTrue();
    noClasses()
        .that()
        .resideInAnyPackage(LOADER + "..", CONNECTOR + "..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(TOOLS + "..")
        .because(
            "the tools are built on the libraries, no part of them: the library jars ship "
                + "without them, and nothing a user runs needs them")
        .check(CLASSES);
  }

  @Test
  void toolsShouldNotReachIntoTheLoadersPipeline() {
    noClasses()
        .that()
        .resideInAPackage(TOOLS + "..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(PIPELINE)
        .because(
            "the benchmarks and the GPU check read data through a DataLoader as any user "
                + "does, so what they measure is what users get")
        .check(CLASSES);
  }

  @Test
  void theLoadersBenchAndTheGpuCheckShouldNotUseSpark() {
    noClasses()
        .that()
        .resideInAnyPackage(BENCH, GPU_CHECK)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.spark..", "org.apache.hadoop..", "scala..", CONNECTOR + "..", SPARK_TOOLS)
        .because(
            "they measure loader-core alone: the GPU check's kit carries loader-core and the "
                + "tools jar, without Spark or the connector")
        .check(CLASSES);
  }

  @Test
  void onlyTheGpuChecksDevicePackageShouldUseJCuda() {
    noClasses()
        .that()
        .resideOutsideOfPackage(GPU_CHECK_DEVICE)
        .and()
        .resideInAPackage(TOOLS + "..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("jcuda..")
        .because(
            "the GPU check's own CUDA calls stay in one package, as loader-core's stay in "
                + "its device package; the rest runs and is tested without a GPU")
        .check(CLASSES);
  }

  @Test
  void theGpuChecksDevicePackageShouldUseNothingOfStoker() {
    noClasses()
        .that()
        .resideInAPackage(GPU_CHECK_DEVICE)
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.stoker..")
                .and(not(resideInAPackage(GPU_CHECK_DEVICE)))
                .as("reside in Stoker outside %s", GPU_CHECK_DEVICE))
        .because(
            "raw copies, device facts and the PTX step are CUDA only: what the loader is "
                + "compared with, not the loader")
        .check(CLASSES);
  }

  @Test
  void onlyTheGpuCheckShouldUseIt() {
    noClasses()
        .that()
        .resideOutsideOfPackage(GPU_CHECK)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(GPU_CHECK)
        .because(
            "the GPU check runs from its kit (scripts/gpu-check.sh); the benchmarks do not "
                + "need it")
        .check(CLASSES);
  }

  @Test
  void theSparkBenchmarksShouldUseTheConnectorAsUsersDo() {
    noClasses()
        .that()
        .resideInAPackage(SPARK_BENCH)
        .should()
        .dependOnClassesThat(connectorOutside(CONNECTOR_API, SOURCE, COLLECTIVE))
        .because(
            "the benchmarks use the connector's public API, the DataSource's scan and the "
                + "collective, so what they measure is what users get")
        .check(CLASSES);
  }

  @Test
  void theJvmYardstickShouldReadAsThePythonBridgeDoes() {
    noClasses()
        .that()
        .resideInAPackage(YARDSTICK)
        .should()
        .dependOnClassesThat(connectorOutside(SOURCE, PARQUET))
        .because(
            "it takes each rank's batches as the Python bridge does, from the DataSource's "
                + "scan and the Parquet stack, so that it is the yardstick of what Python users get")
        .check(CLASSES);
  }

  @Test
  void theLoadersBenchShouldNotUseTheOtherTools() {
    noClasses()
        .that()
        .resideInAPackage(BENCH)
        .should()
        .dependOnClassesThat(
            resideInAPackage(TOOLS + "..")
                .and(not(resideInAPackage(BENCH)))
                .as("reside in the tools outside %s", BENCH))
        .because("the GPU check and the command line run its workloads, never the other way")
        .check(CLASSES);
  }

  @Test
  void packagesShouldBeFreeOfCycles() {
    slices()
        .assignedFrom(EACH_PACKAGE)
        .should()
        .beFreeOfCycles()
        .because(
            "the arrows between packages go one way, so each tool can be read and tested "
                + "knowing only the packages it uses")
        .check(CLASSES);
  }

  @Test
  void everyPackageShouldHaveAPackageInfo() throws IOException {
    Path sources = Path.of("src", "main", "java");
    assertThat(sources).as("the tools' sources, from the module's directory").isDirectory();

    Set<String> packages = new TreeSet<>();
    CLASSES.stream()
        .map(JavaClass::getPackageName)
        .filter(p -> p.startsWith(TOOLS + "."))
        .forEach(packages::add);
    try (Stream<Path> files = Files.walk(sources.resolve(TOOLS.replace('.', '/')))) {
      files
          .filter(f -> f.toString().endsWith(".java"))
          .map(f -> sources.relativize(f.getParent()).toString().replace('/', '.'))
          .forEach(packages::add);
    }
    List<String> missing =
        packages.stream()
            .filter(p -> !Files.isRegularFile(packageInfo(sources, p)))
            .collect(Collectors.toList());

    assertThat(packages)
        .contains(
            TOOLS + ".bench",
            TOOLS + ".gpucheck",
            TOOLS + ".gpucheck.device",
            TOOLS + ".spark",
            TOOLS + ".spark.python");
    assertThat(missing)
        .as(
            "packages without a package-info.java that says what lives there and what it must "
                + "not import")
        .isEmpty();
  }

  private static Path packageInfo(Path sources, String pkg) {
    return sources.resolve(pkg.replace('.', '/')).resolve("package-info.java");
  }

  /** Classes of the connector (the root package and all below it) outside the given packages. */
  private static DescribedPredicate<JavaClass> connectorOutside(String... allowed) {
    return resideInAPackage(CONNECTOR + "..")
        .and(not(resideInAnyPackage(allowed)))
        .as("reside in the connector outside %s", String.join(", ", allowed));
  }
}
