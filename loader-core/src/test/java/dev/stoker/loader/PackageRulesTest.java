package dev.stoker.loader;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
  private static final String UTIL = STOKER + ".util..";
  private static final String STATE = STOKER + ".state..";
  private static final String OPTION = STOKER + ".option..";
  private static final String TRANSFORM = STOKER + ".transform..";

  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages(STOKER);

  /**
   * The failures a user catches: API types of the root package that the pipeline raises too, so
   * they use nothing else of the loader and count as a leaf of their own.
   */
  private static final DescribedPredicate<JavaClass> FAILURES =
      DescribedPredicate.describe(
          "the loader's failures",
          type ->
              belongToAnyOf(BatchLoadException.class, LoaderTimeoutException.class, Stage.class)
                  .test(type.isArray() ? type.getBaseComponentType() : type));

  /**
   * The root package is a slice of its own, and so is each subpackage with all below it; the
   * failures are one more.
   */
  private static final SliceAssignment ROOT_AND_SUBPACKAGES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          String pkg = javaClass.getPackageName();
          if (FAILURES.test(javaClass)) {
            return SliceIdentifier.of(STOKER + "'s failures");
          }
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
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.spark..", "org.apache.hadoop..", "scala..")
        .because(
            "the arrows go one way, examples -> tools -> spark-connector -> loader-core: the "
                + "loader runs without Spark or Hadoop on the classpath")
        .check(CLASSES);
  }

  @Test
  void shouldUseJCudaOnlyInDevice() {
    noClasses()
        .that()
        .resideOutsideOfPackage(DEVICE)
        .should()
        .dependOnClassesThat()
        .resideInAPackage("jcuda..")
        .because(
            "CUDA stays behind the Device interface, so everything else loads and runs "
                + "on machines without a GPU or JCuda's native libraries")
        .check(CLASSES);
  }

  @Test
  void samplerShouldUseNothingElseOfStoker() {
    noClasses()
        .that()
        .resideInAPackage(SAMPLER)
        .should()
        .dependOnClassesThat(stokerOutside(SAMPLER))
        .because(
            "an epoch's order is a pure function of (seed, epoch, rank, worldSize), which "
                + "can be checked without a loader, a dataset or memory")
        .check(CLASSES);
  }

  @Test
  void stateShouldUseNothingElseOfStoker() {
    noClasses()
        .that()
        .resideInAPackage(STATE)
        .should()
        .dependOnClassesThat(stokerOutside(STATE))
        .because(
            "a loader's state is a value stored next to a model checkpoint: it is read "
                + "and checked without a loader, a dataset or memory")
        .check(CLASSES);
  }

  @Test
  void optionShouldUseNothingElseOfStokerButUtil() {
    noClasses()
        .that()
        .resideInAPackage(OPTION)
        .should()
        .dependOnClassesThat(stokerOutside(OPTION, UTIL))
        .because(
            "the typed option and its readers sit below every table of options: the "
                + "loader's and the Spark connector's")
        .check(CLASSES);
  }

  @Test
  void transformShouldUseOnlyTheLoaderApiAndUtil() {
    noClasses()
        .that()
        .resideInAPackage(TRANSFORM)
        .should()
        .dependOnClassesThat(stokerOutside(LOADER, TRANSFORM, UTIL))
        .because(
            "the built-in transforms are written against the API a user's SampleTransform sees: "
                + "never the pipeline, memory or devices")
        .check(CLASSES);
  }

  @Test
  void utilShouldUseNothingElseOfStoker() {
    noClasses()
        .that()
        .resideInAPackage(UTIL)
        .should()
        .dependOnClassesThat(stokerOutside(UTIL))
        .because("every other package may use util, so util may use none of them")
        .check(CLASSES);
  }

  @Test
  void metricsShouldUseNothingElseOfStokerButUtil() {
    noClasses()
        .that()
        .resideInAPackage(METRICS)
        .should()
        .dependOnClassesThat(stokerOutside(METRICS, UTIL))
        .because(
            "the pipeline writes the counters and the loader reads the snapshots, never "
                + "the other way round")
        .check(CLASSES);
  }

  @Test
  void memoryShouldNotKnowBatchesDevicesOrThePipeline() {
    noClasses()
        .that()
        .resideInAPackage(MEMORY)
        .should()
        .dependOnClassesThat(stokerOutside(MEMORY, METRICS, UTIL))
        .because(
            "host memory and its slot pool sit below everything that fills, orders or "
                + "copies batches; a pinned allocator implements HostAllocator from the device side")
        .check(CLASSES);
  }

  @Test
  void deviceShouldUseOnlyMemoryOfStoker() {
    noClasses()
        .that()
        .resideInAPackage(DEVICE)
        .should()
        .dependOnClassesThat(stokerOutside(DEVICE, MEMORY, UTIL))
        .because(
            "a device copies host memory into its own; it knows nothing of datasets, "
                + "batches or the pipeline that drives it")
        .check(CLASSES);
  }

  @Test
  void pipelineShouldNotKnowDatasetsSamplersOrTheLoader() {
    noClasses()
        .that()
        .resideInAPackage(PIPELINE)
        .should()
        .dependOnClassesThat(
            stokerOutside(PIPELINE, MEMORY, DEVICE, METRICS, UTIL).and(not(FAILURES)))
        .because(
            "the pipeline knows slots, batch numbers and stages, and raises the loader's "
                + "failures; datasets, schemas and sampler order belong to the loader, which drives "
                + "the pipeline through a BatchWriter")
        .check(CLASSES);
  }

  @Test
  void statsShouldNotReachIntoThePipeline() {
    noClasses()
        .that()
        .resideInAPackage(STATS)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(PIPELINE)
        .because(
            "statistics read data through a DataLoader as any user does, so what they "
                + "compute is what users get")
        .check(CLASSES);
  }

  @Test
  void loaderShouldNotDependOnStats() {
    noClasses()
        .that()
        .resideInAPackage(LOADER)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(STATS)
        .because("statistics are built on the loader's public API, not part of it")
        .check(CLASSES);
  }

  @Test
  void failuresShouldUseNothingElseOfStoker() {
    noClasses()
        .that(FAILURES)
        .should()
        .dependOnClassesThat(stokerOutside(LOADER).or(resideInAPackage(LOADER).and(not(FAILURES))))
        .because("the pipeline raises them and users catch them: they are plain values")
        .check(CLASSES);
  }

  @Test
  void apiShouldExposeOnlyApiTypes() {
    classes()
        .that()
        .resideInAPackage(LOADER)
        .and()
        .arePublic()
        .should(exposeNoTypeThat(resideInAPackage(PIPELINE)))
        .because(
            "users import the root package and the packages it names in its signatures; "
                + "the pipeline is not among them")
        .check(CLASSES);
  }

  @Test
  void packagesShouldBeFreeOfCycles() {
    slices()
        .assignedFrom(ROOT_AND_SUBPACKAGES)
        .should()
        .beFreeOfCycles()
        .because(
            "the arrows between packages go one way, so each package can be read and "
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
      files
          .filter(f -> f.toString().endsWith(".java"))
          .map(f -> sources.relativize(f.getParent()).toString().replace('/', '.'))
          .forEach(packages::add);
    }
    List<String> missing =
        packages.stream()
            .filter(p -> !Files.isRegularFile(packageInfo(sources, p)))
            .collect(Collectors.toList());

    assertThat(packages).contains(STOKER, STOKER + ".pipeline");
    assertThat(missing)
        .as(
            "packages without a package-info.java that says what lives there and what it must "
                + "not import")
        .isEmpty();
  }

  private static Path packageInfo(Path sources, String pkg) {
    return sources.resolve(pkg.replace('.', '/')).resolve("package-info.java");
  }

  /**
   * The class's supertypes and type parameters, and the signatures of its public and protected
   * constructors, methods and fields (parameters, results, type arguments and bounds, declared
   * exceptions), use none of {@code types}.
   */
  private static ArchCondition<JavaClass> exposeNoTypeThat(DescribedPredicate<JavaClass> types) {
    return new ArchCondition<>("expose no type that " + types.getDescription()) {
      @Override
      public void check(JavaClass type, ConditionEvents events) {
        Set<String> seen = new TreeSet<>();
        List<JavaType> declaration = new ArrayList<>();
        type.getSuperclass().ifPresent(declaration::add);
        declaration.addAll(type.getInterfaces());
        declaration.addAll(type.getTypeParameters());
        expose(type, type.getName(), declaration, types, seen);
        for (JavaMember member : type.getMembers()) {
          Set<JavaModifier> modifiers = member.getModifiers();
          if (!modifiers.contains(JavaModifier.PUBLIC)
              && !modifiers.contains(JavaModifier.PROTECTED)) {
            continue;
          }
          List<JavaType> signature = new ArrayList<>();
          if (member instanceof JavaField field) {
            signature.add(field.getType());
          } else if (member instanceof JavaCodeUnit code) {
            signature.add(code.getReturnType());
            signature.addAll(code.getParameterTypes());
            signature.addAll(code.getTypeParameters());
            signature.addAll(code.getExceptionTypes());
          }
          expose(type, member.getFullName(), signature, types, seen);
        }
        seen.forEach(message -> events.add(SimpleConditionEvent.violated(type, message)));
      }
    };
  }

  private static void expose(
      JavaClass owner,
      String where,
      List<JavaType> parts,
      DescribedPredicate<JavaClass> types,
      Set<String> seen) {
    for (JavaType part : parts) {
      for (JavaClass used : part.getAllInvolvedRawTypes()) {
        JavaClass base = used.isArray() ? used.getBaseComponentType() : used;
        if (types.test(base)) {
          seen.add(owner.getName() + ": " + where + " exposes " + base.getName());
        }
      }
    }
  }

  /** Classes of Stoker outside the given packages (each a package pattern). */
  private static DescribedPredicate<JavaClass> stokerOutside(String... allowed) {
    return resideInAPackage(STOKER + "..")
        .and(not(resideInAnyPackage(allowed)))
        .as("reside in Stoker outside %s", String.join(", ", allowed));
  }
}
