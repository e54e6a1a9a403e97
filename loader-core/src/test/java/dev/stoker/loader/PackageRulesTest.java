package dev.stoker.loader;

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
 * The package rules that each {@code package-info.java} of loader-core states, one rule per test.
 * Only main classes are checked: tests may reach across packages.
 */
class PackageRulesTest {

  private static final String STOKER = "dev.stoker.loader";

  /** The root package alone, without its subpackages. */
  private static final String LOADER = STOKER;

  private static final String SAMPLER = STOKER + ".sampler..";
  private static final String MEMORY = STOKER + ".memory..";
  private static final String DEVICE = STOKER + ".device..";
  private static final String PIPELINE = STOKER + ".pipeline..";
  private static final String METRICS = STOKER + ".metrics..";
  private static final String STATS = STOKER + ".stats..";
  private static final String BENCH = STOKER + ".bench..";
  private static final String UTIL = STOKER + ".util..";
  private static final String STATE = STOKER + ".state..";
  private static final String DEVICE_CHECK = STOKER + ".device.check..";
  private static final String GPU_CHECK = STOKER + ".gpucheck..";

  private static final JavaClasses CLASSES = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages(STOKER);

  /** The root package is a slice of its own, and so is each subpackage with all below it. */
  private static final SliceAssignment ROOT_AND_SUBPACKAGES = new SliceAssignment() {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
      String pkg = javaClass.getPackageName();
      if (pkg.equals(STOKER)) {
        return SliceIdentifier.of(STOKER);
      }
      if (pkg.startsWith(STOKER + ".")) {
        String sub = pkg.substring(STOKER.length() + 1);
        int dot = sub.indexOf('.');
        return SliceIdentifier.of(STOKER + "." + (dot < 0 ? sub : sub.substring(0, dot)));
      }
      return SliceIdentifier.ignore();
    }

    @Override
    public String getDescription() {
      return STOKER + " and each of its subpackages";
    }
  };

  @Test
  void shouldNotDependOnSparkHadoopOrScala() {
    noClasses()
        .should().dependOnClassesThat()
        .resideInAnyPackage("org.apache.spark..", "org.apache.hadoop..", "scala..")
        .because("the arrows go one way, examples -> spark-connector -> loader-core: the loader "
            + "runs without Spark or Hadoop on the classpath")
        .check(CLASSES);
  }

  @Test
  void shouldUseJCudaOnlyInDevice() {
    noClasses()
        .that().resideOutsideOfPackage(DEVICE)
        .should().dependOnClassesThat().resideInAPackage("jcuda..")
        .because("CUDA stays behind the Device interface, so everything else loads and runs "
            + "on machines without a GPU or JCuda's native libraries")
        .check(CLASSES);
  }

  @Test
  void samplerShouldUseNothingElseOfStoker() {
    noClasses()
        .that().resideInAPackage(SAMPLER)
        .should().dependOnClassesThat(stokerOutside(SAMPLER))
        .because("an epoch's order is a pure function of (seed, epoch, rank, worldSize), which "
            + "can be checked without a loader, a dataset or memory")
        .check(CLASSES);
  }

  @Test
  void stateShouldUseNothingElseOfStoker() {
    noClasses()
        .that().resideInAPackage(STATE)
        .should().dependOnClassesThat(stokerOutside(STATE))
        .because("a loader's state is a value stored next to a model checkpoint: it is read "
            + "and checked without a loader, a dataset or memory")
        .check(CLASSES);
  }

  @Test
  void utilShouldUseNothingElseOfStoker() {
    noClasses()
        .that().resideInAPackage(UTIL)
        .should().dependOnClassesThat(stokerOutside(UTIL))
        .because("every other package may use util, so util may use none of them")
        .check(CLASSES);
  }

  @Test
  void metricsShouldUseNothingElseOfStokerButUtil() {
    noClasses()
        .that().resideInAPackage(METRICS)
        .should().dependOnClassesThat(stokerOutside(METRICS, UTIL))
        .because("the pipeline writes the counters and the loader reads the snapshots, never "
            + "the other way round")
        .check(CLASSES);
  }

  @Test
  void memoryShouldNotKnowBatchesDevicesOrThePipeline() {
    noClasses()
        .that().resideInAPackage(MEMORY)
        .should().dependOnClassesThat(stokerOutside(MEMORY, METRICS, UTIL))
        .because("host memory and its slot pool sit below everything that fills, orders or "
            + "copies batches; a pinned allocator implements HostAllocator from the device side")
        .check(CLASSES);
  }

  @Test
  void deviceShouldUseOnlyMemoryOfStoker() {
    noClasses()
        .that().resideInAPackage(DEVICE)
        .should().dependOnClassesThat(stokerOutside(DEVICE, MEMORY, UTIL))
        .because("a device copies host memory into its own; it knows nothing of datasets, "
            + "batches or the pipeline that drives it")
        .check(CLASSES);
  }

  @Test
  void pipelineShouldNotKnowDatasetsSamplersOrTheLoader() {
    noClasses()
        .that().resideInAPackage(PIPELINE)
        .should().dependOnClassesThat(stokerOutside(PIPELINE, MEMORY, DEVICE, METRICS, UTIL))
        .because("the pipeline knows slots, batch numbers and stages; datasets, schemas and "
            + "sampler order belong to the loader, which drives the pipeline through a BatchWriter")
        .check(CLASSES);
  }

  @Test
  void statsAndBenchShouldNotReachIntoThePipeline() {
    noClasses()
        .that().resideInAnyPackage(STATS, BENCH)
        .should().dependOnClassesThat().resideInAPackage(PIPELINE)
        .because("statistics and benchmarks read data through a DataLoader as any user does, "
            + "so what they measure is what users get")
        .check(CLASSES);
  }

  @Test
  void loaderShouldNotDependOnStatsOrBench() {
    noClasses()
        .that().resideInAPackage(LOADER)
        .should().dependOnClassesThat().resideInAnyPackage(STATS, BENCH)
        .because("statistics and benchmarks are built on the loader's public API, not part of it")
        .check(CLASSES);
  }

  @Test
  void gpuCheckShouldReadDataAsUsersDo() {
    noClasses()
        .that().resideInAPackage(GPU_CHECK)
        .should().dependOnClassesThat().resideInAPackage(PIPELINE)
        .because("the GPU check measures what users get, through a DataLoader and a device")
        .check(CLASSES);
  }

  @Test
  void onlyTheGpuCheckShouldUseItsTools() {
    noClasses()
        .that().resideOutsideOfPackages(GPU_CHECK, DEVICE_CHECK)
        .should().dependOnClassesThat().resideInAnyPackage(GPU_CHECK, DEVICE_CHECK)
        .because("the GPU check and its CUDA tools are no part of the loader: nothing a loader "
            + "runs may need them")
        .check(CLASSES);
  }

  @Test
  void packagesShouldBeFreeOfCycles() {
    slices()
        .assignedFrom(ROOT_AND_SUBPACKAGES)
        .should().beFreeOfCycles()
        .because("the arrows between packages go one way, so each package can be read and "
            + "tested knowing only the packages it uses")
        .check(CLASSES);
  }

  @Test
  void everyPackageShouldHaveAPackageInfo() throws IOException {
    Path sources = Path.of("src", "main", "java");
    assertThat(sources).as("loader-core's sources, from the module's directory").isDirectory();

    Set<String> packages = new TreeSet<>();
    CLASSES.forEach(c -> packages.add(c.getPackageName()));
    try (Stream<Path> files = Files.walk(sources.resolve(STOKER.replace('.', '/')))) {
      files.filter(f -> f.toString().endsWith(".java"))
          .map(f -> sources.relativize(f.getParent()).toString().replace('/', '.'))
          .forEach(packages::add);
    }
    List<String> missing = packages.stream()
        .filter(p -> !Files.isRegularFile(packageInfo(sources, p)))
        .collect(Collectors.toList());

    assertThat(packages).contains(STOKER, STOKER + ".pipeline");
    assertThat(missing)
        .as("packages without a package-info.java that says what lives there and what it must "
            + "not import")
        .isEmpty();
  }

  private static Path packageInfo(Path sources, String pkg) {
    return sources.resolve(pkg.replace('.', '/')).resolve("package-info.java");
  }

  /** Classes of Stoker outside the given packages (each a package pattern). */
  private static DescribedPredicate<JavaClass> stokerOutside(String... allowed) {
    return resideInAPackage(STOKER + "..").and(not(resideInAnyPackage(allowed)))
        .as("reside in Stoker outside %s", String.join(", ", allowed));
  }
}
