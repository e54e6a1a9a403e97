package dev.stoker.spark;

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
 * The package rules that each {@code package-info.java} of the Spark connector states, one rule per
 * test. Only main classes are checked: tests may reach across packages.
 */
class PackageRulesTest {

  private static final String SPARK = "dev.stoker.spark";

  /** The root package alone, without its subpackages: the public API and its data model. */
  private static final String API = SPARK;

  /** The runner's own package alone; {@link #RUNNER} is it with its subpackages. */
  private static final String RUN = SPARK + ".run";

  private static final String RUNNER = SPARK + ".run..";
  private static final String BALANCE = SPARK + ".run.balance..";
  private static final String SHARD = SPARK + ".shard..";
  private static final String PARQUET = SPARK + ".parquet..";
  private static final String SOURCE = SPARK + ".source..";
  private static final String ROWS = SPARK + ".rows..";
  private static final String COLLECTIVE = SPARK + ".collective..";
  private static final String RAPIDS = SPARK + ".rapids..";
  private static final String OPTIONS = SPARK + ".options..";
  private static final String UI = SPARK + ".ui..";
  private static final String PYTHON = SPARK + ".python..";
  private static final String CLUSTER = SPARK + ".cluster..";

  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages(SPARK);

  /** The API's builder, with its nested classes: the one class of the API that starts a run. */
  private static final DescribedPredicate<JavaClass> BUILDER =
      belongToAnyOf(StokerSpark.class).as("StokerSpark");

  /**
   * Each exact package is a slice of its own (so run and run.balance are two), except that the root
   * package and run are one: the builder hands the run to {@code run.BarrierRun} and {@code run}
   * implements the API's {@code RankContext}, the one cycle the design has. Any other cycle,
   * through those two or not, is a cycle between slices.
   */
  private static final SliceAssignment EACH_PACKAGE =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          String pkg = javaClass.getPackageName();
          if (pkg.equals(API) || pkg.equals(RUN)) {
            return SliceIdentifier.of(API + " with " + RUN);
          }
          if (pkg.startsWith(SPARK + ".")) {
            return SliceIdentifier.of(pkg);
          }
          return SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
          return "each package of " + SPARK + ", the root package and run together";
        }
      };

  @Test
  void apiShouldHoldOnlyPublicClasses() {
    classes()
        .that()
        .resideInAPackage(API)
        .and()
        .areTopLevelClasses()
        .and()
        .doNotHaveSimpleName("package-info")
        .should()
        .bePublic()
        .because(
            "the root package holds only the public API and its data model; what users "
                + "need not see lives in the packages below it")
        .check(CLASSES);
  }

  @Test
  void apiShouldExposeOnlyApiTypes() {
    classes()
        .that()
        .resideInAPackage(API)
        .and()
        .arePublic()
        .should(exposeNoTypeThat(connectorOutside(API)))
        .because(
            "what a user sees of the connector is the root package: a type of the packages "
                + "below it in a public signature would make that package API too")
        .check(CLASSES);
  }

  @Test
  void apiShouldNotUseSparksInternalsOrJCuda() {
    noClasses()
        .that()
        .resideInAPackage(API)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.spark.sql.execution..",
            "org.apache.spark.sql.catalyst..",
            "org.apache.spark.sql.internal..",
            "jcuda..")
        .because(
            "the API speaks in DataFrames, schemas and loader options; Spark's execution "
                + "and catalyst classes and CUDA belong to the packages that run a rank")
        .check(CLASSES);
  }

  @Test
  void apiShouldNotReadFiles() {
    noClasses()
        .that()
        .resideInAPackage(API)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(PARQUET, SOURCE, "org.apache.parquet..", "org.apache.hadoop..")
        .because(
            "nothing in the API reads a file: the builder hands the run to the runner, "
                + "which plans and reads the input")
        .check(CLASSES);
  }

  @Test
  void onlyTheBuilderOfTheApiShouldUseTheRunner() {
    noClasses()
        .that()
        .resideInAPackage(API)
        .and(not(BUILDER))
        .should()
        .dependOnClassesThat()
        .resideInAPackage(RUNNER)
        .because(
            "the API's data model knows nothing of how a run is done; only StokerSpark "
                + "hands the run to the runner")
        .check(CLASSES);
  }

  @Test
  void nothingInTheConnectorShouldUseThePythonBridge() {
    noClasses()
        .that()
        .resideOutsideOfPackage(PYTHON)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(PYTHON)
        .because(
            "the Python bridge is an entry point for PySpark only; it consumes the "
                + "DataSource's scan and the Parquet stack")
        .check(CLASSES);
  }

  @Test
  void thePythonBridgeShouldUseOnlyTheScanAndTheParquetStack() {
    noClasses()
        .that()
        .resideInAPackage(PYTHON)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(API, RUNNER, ROWS, COLLECTIVE)
        .because(
            "a Python rank is one loader over the scan's planned runs; the runner, the "
                + "API and the collective are for JVM training")
        .check(CLASSES);
  }

  @Test
  void onlyTheRunnerShouldUseTheApi() {
    noClasses()
        .that()
        .resideOutsideOfPackages(API, RUN)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(API)
        .because(
            "the API is built on the packages below it: only the runner, which implements "
                + "RankContext, imports it")
        .check(CLASSES);
  }

  @Test
  void onlyTheBuilderShouldUseTheRunner() {
    noClasses()
        .that()
        .resideOutsideOfPackage(RUNNER)
        .and(not(BUILDER))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(RUN, BALANCE)
        .because(
            "the runner is no library: nothing in the connector imports it but the API's "
                + "builder")
        .check(CLASSES);
  }

  @Test
  void onlyTheRunnerTheRowsAndTheBuilderShouldUseTheShardCache() {
    noClasses()
        .that()
        .resideOutsideOfPackages(RUNNER, ROWS, SHARD)
        .and(not(BUILDER))
        .should()
        .dependOnClassesThat()
        .resideInAPackage(SHARD)
        .because(
            "the shard cache is the runner's; the rows path fills its blocks and the "
                + "builder checks the declared columns against its layout")
        .check(CLASSES);
  }

  @Test
  void parquetShouldUseNothingElseOfTheConnector() {
    noClasses()
        .that()
        .resideInAPackage(PARQUET)
        .should()
        .dependOnClassesThat(connectorOutside(PARQUET, OPTIONS))
        .because(
            "the Parquet stack is shared by the DataSource and the runner, which consume "
                + "it; it imports Spark, Parquet, Hadoop and loader-core only")
        .check(CLASSES);
  }

  @Test
  void sourceShouldNotUseTheRunnerTheApiOrTheRows() {
    noClasses()
        .that()
        .resideInAPackage(SOURCE)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(RUNNER, API, ROWS)
        .because(
            "the DataSource holds only Spark's read interfaces over the Parquet stack; "
                + "the runner and the API consume it")
        .check(CLASSES);
  }

  @Test
  void shardCacheShouldNotUseSparkScalaOrHadoop() {
    noClasses()
        .that()
        .resideInAPackage(SHARD)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.spark..", "scala..", "org.apache.hadoop..")
        .because(
            "a rank's shard cache knows loader-core's data model only, so it is written, "
                + "read and tested without Spark")
        .check(CLASSES);
  }

  @Test
  void shardCacheShouldUseNothingElseOfTheConnector() {
    noClasses()
        .that()
        .resideInAPackage(SHARD)
        .should()
        .dependOnClassesThat(connectorOutside(SHARD))
        .because(
            "a rank's shard cache knows loader-core's data model only; the rows path and "
                + "the runner fill it")
        .check(CLASSES);
  }

  @Test
  void rowsShouldUseOnlyTheShardCacheOfTheConnector() {
    noClasses()
        .that()
        .resideInAPackage(ROWS)
        .should()
        .dependOnClassesThat(connectorOutside(ROWS, SHARD))
        .because(
            "the rows path copies Spark's internal rows into shard blocks; the runner and "
                + "the API drive it, so it imports neither, nor the Parquet stack or the DataSource")
        .check(CLASSES);
  }

  @Test
  void balanceShouldUseOnlyTheRowsTheShardCacheAndTheClusterFactsOfTheConnector() {
    noClasses()
        .that()
        .resideInAPackage(BALANCE)
        .should()
        .dependOnClassesThat(connectorOutside(BALANCE, ROWS, SHARD, CLUSTER))
        .because(
            "balancing counts and moves rows between ranks; the runner that calls it and "
                + "the API stay above it (the cluster package, Spark's slots and Scala "
                + "collections, is below everything)")
        .check(CLASSES);
  }

  @Test
  void collectiveShouldUseOnlyTheJdkAndSlf4j() {
    classes()
        .that()
        .resideInAPackage(COLLECTIVE)
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(COLLECTIVE, "java..", "javax..", "org.slf4j..")
        .because(
            "the all-reduce imports nothing from Spark, loader-core or the rest of the "
                + "connector: the caller hands it the rendezvous and the cancellation check")
        .check(CLASSES);
  }

  @Test
  void optionsShouldUseNothingElseOfTheConnector() {
    noClasses()
        .that()
        .resideInAPackage(OPTIONS)
        .should()
        .dependOnClassesThat(connectorOutside(OPTIONS))
        .because(
            "the table of options sits below every reader of options: the loader's, "
                + "the DataSource's, the runner's and the API's typed options and enums")
        .check(CLASSES);
  }

  @Test
  void rapidsShouldUseNothingElseOfStoker() {
    noClasses()
        .that()
        .resideInAPackage(RAPIDS)
        .should()
        .dependOnClassesThat(stokerOutside(RAPIDS))
        .because("finding RAPIDS in a session needs Spark only")
        .check(CLASSES);
  }

  @Test
  void packagesShouldBeFreeOfCyclesButTheApiAndTheRunner() {
    slices()
        .assignedFrom(EACH_PACKAGE)
        .should()
        .beFreeOfCycles()
        .because(
            "the arrows between packages go one way, so each package can be read and "
                + "tested knowing only the packages it uses; the API and the runner are the one "
                + "pair that use each other")
        .check(CLASSES);
  }

  @Test
  void everyPackageShouldHaveAPackageInfo() throws IOException {
    Path sources = Path.of("src", "main", "java");
    assertThat(sources).as("spark-connector's sources, from the module's directory").isDirectory();

    Set<String> packages = new TreeSet<>();
    CLASSES.forEach(c -> packages.add(c.getPackageName()));
    try (Stream<Path> files = Files.walk(sources.resolve(SPARK.replace('.', '/')))) {
      files
          .filter(f -> f.toString().endsWith(".java"))
          .map(f -> sources.relativize(f.getParent()).toString().replace('/', '.'))
          .forEach(packages::add);
    }
    List<String> missing =
        packages.stream()
            .filter(p -> !Files.isRegularFile(packageInfo(sources, p)))
            .collect(Collectors.toList());

    assertThat(packages).contains(SPARK, SPARK + ".run", SPARK + ".shard");
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

  @Test
  void uiShouldUseNothingElseOfTheConnector() {
    noClasses()
        .that()
        .resideInAPackage(UI)
        .should()
        .dependOnClassesThat(connectorOutside(UI))
        .because(
            "the Stoker page draws the events the runner posts; the runner and the API "
                + "call it, never the other way")
        .check(CLASSES);
  }

  @Test
  void onlyTheUiHooksShouldUseSparksUiInternals() {
    noClasses()
        .that()
        .haveNameNotMatching(
            "dev\\.stoker\\.spark\\.ui\\.(SparkUiHooks|StokerHistoryPlugin)" + "(\\$.*)?")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.spark.ui..",
            "org.apache.spark.status..",
            "javax.servlet..",
            "jakarta.servlet..",
            "scala.xml..")
        .because(
            "Spark keeps its UI classes internal and they differ between 3.5 and 4: one "
                + "class (and the History Server's plugin) holds every use, so that a mismatch "
                + "costs the page, never a run")
        .check(CLASSES);
  }

  /** Classes of the connector (the root package and all below it) outside the given packages. */
  private static DescribedPredicate<JavaClass> connectorOutside(String... allowed) {
    return resideInAPackage(SPARK + "..")
        .and(not(resideInAnyPackage(allowed)))
        .as("reside in the connector outside %s", String.join(", ", allowed));
  }

  /** Classes of Stoker (loader-core or the connector) outside the given packages. */
  private static DescribedPredicate<JavaClass> stokerOutside(String... allowed) {
    return resideInAPackage("dev.stoker..")
        .and(not(resideInAnyPackage(allowed)))
        .as("reside in Stoker outside %s", String.join(", ", allowed));
  }
}
