package dev.stoker.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.stoker.examples.docs.DocBlocks.Block;
import dev.stoker.examples.notebook.ScalaCells;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code java} block of the README and the docs compiles against this module's test class
 * path (Stoker, Spark, the examples), one dynamic test per block, named by its file and line, and
 * so does every {@code scala} block, through Scala's interpreter. A block is a whole compilation
 * unit ({@code class}), a class's members ({@code members}) or, by default, statements ({@code
 * method}), which are wrapped in a method of a class whose fields are the comment's {@code given}
 * declarations and whose further members are its {@code extra} lines (see {@link DocBlocks}).
 * Nothing is written to disk: the class files are dropped in memory.
 */
class DocSnippetsTest {
  /** The languages whose blocks are tested here, or by python/tests/test_doc_snippets.py. */
  private static final Set<String> TESTED = Set.of("java", "scala", "python", "sql");

  /** The languages whose blocks are deliberately not compiled or run. */
  private static final Set<String> NOT_RUN = Set.of("bash", "text");

  private static final Pattern PUBLIC_TYPE =
      Pattern.compile(
          "(?m)^public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)");

  private static JavaCompiler compiler;
  private static StandardJavaFileManager files;
  private static List<String> options;

  @BeforeAll
  static void compiler() {
    compiler = ToolProvider.getSystemJavaCompiler();
    assertThat(compiler).as("javac of the JDK that runs the tests").isNotNull();
    files = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
    options = List.of("-classpath", ScalaCells.classpath(), "-proc:none", "-Xlint:none", "-nowarn");
  }

  @AfterAll
  static void closeFiles() throws IOException {
    if (files != null) {
      files.close();
    }
  }

  @TestFactory
  Stream<DynamicTest> everyJavaBlockCompiles() {
    List<Block> blocks =
        DocBlocks.all(DocBlocks.root()).stream()
            .filter(b -> b.language().equals("java"))
            .collect(Collectors.toList());
    assertThat(blocks).as("java blocks in README.md and docs/").isNotEmpty();
    return blocks.stream().map(b -> DynamicTest.dynamicTest(b.where(), () -> compile(b)));
  }

  /**
   * Every {@code scala} block compiles: Scala's interpreter compiles it as the body of a method
   * {@code snippet} whose parameters are the comment's {@code given} ones (by default {@code spark:
   * SparkSession}), and never calls it.
   */
  @TestFactory
  Stream<DynamicTest> everyScalaBlockCompiles() {
    List<Block> blocks =
        DocBlocks.all(DocBlocks.root()).stream()
            .filter(b -> b.language().equals("scala"))
            .collect(Collectors.toList());
    if (blocks.isEmpty()) {
      return Stream.empty();
    }
    ScalaCells scala = new ScalaCells();
    return blocks.stream()
        .map(
            b ->
                DynamicTest.dynamicTest(
                    b.where(),
                    () -> {
                      String kind = b.kind() == null ? "method" : b.kind();
                      assertThat(kind)
                          .as("%s: snippet kind of a scala block", b.where())
                          .isEqualTo("method");
                      List<String> given = b.values("given", ";");
                      StringBuilder code = new StringBuilder();
                      for (String name : b.values("imports", ",")) {
                        code.append("import ").append(name).append('\n');
                      }
                      code.append("def snippet(")
                          .append(
                              given.isEmpty()
                                  ? "spark: org.apache.spark.sql.SparkSession"
                                  : String.join(", ", given))
                          .append("): Unit = {\n")
                          .append(b.code())
                          .append("}\n");
                      ScalaCells.Outcome outcome = scala.run(code.toString());
                      if (!outcome.success()) {
                        fail(
                            b.where()
                                + ": the scala block does not compile ("
                                + outcome.result()
                                + "):\n"
                                + outcome.output()
                                + "\nas compiled:\n"
                                + numbered(code.toString()));
                      }
                    }))
        .onClose(scala::close);
  }

  @Test
  void everyBlockNamesALanguageThatIsTestedOrDeliberatelyNot() {
    List<String> unknown = new ArrayList<>();
    for (Block block : DocBlocks.all(DocBlocks.root())) {
      if (!TESTED.contains(block.language()) && !NOT_RUN.contains(block.language())) {
        unknown.add(block.where() + ": '" + block.language() + "'");
      }
      if (block.kind() != null && NOT_RUN.contains(block.language())) {
        unknown.add(
            block.where()
                + ": a snippet comment on a "
                + block.language()
                + " block, which is never run");
      }
    }
    assertThat(unknown)
        .as(
            "blocks whose language is neither tested (%s) nor marked as not run (%s): use "
                + "```text for output and pseudo code",
            TESTED, NOT_RUN)
        .isEmpty();
  }

  private static void compile(Block block) {
    String kind = block.kind() == null ? "method" : block.kind();
    Source source =
        switch (kind) {
          case "class" -> new Source(typeName(block.code()), block.code(), 1 - block.line());
          case "members", "method" -> wrap(block, kind.equals("method"));
          default ->
              throw new IllegalArgumentException(
                  block.where()
                      + ": snippet kind '"
                      + kind
                      + "' (expected: method, members or class for a java block)");
        };
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    JavaCompiler.CompilationTask task =
        compiler.getTask(
            null,
            new DroppedClasses(files),
            diagnostics,
            options,
            null,
            List.of(new StringSource(source.name(), source.text())));
    boolean compiled = task.call();
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        long line = d.getLineNumber() - source.offset();
        errors.add(block.file() + ":" + line + ": " + d.getMessage(Locale.ROOT));
      }
    }
    if (!compiled || !errors.isEmpty()) {
      fail(
          block.where()
              + ": the java block does not compile:\n"
              + String.join("\n", errors)
              + "\n\nas compiled:\n"
              + numbered(source.text()));
    }
  }

  /**
   * The compilation unit of a fragment.
   *
   * @param source the file name, its text, and what to subtract from its line numbers to get the
   *     Markdown file's
   */
  private record Source(String name, String text, long offset) {}

  private static Source wrap(Block block, boolean inMethod) {
    StringBuilder text = new StringBuilder();
    text.append("import java.util.*;\n");
    for (String name : block.values("imports", ",")) {
      text.append("import ").append(name).append(";\n");
    }
    text.append("@SuppressWarnings(\"all\")\nclass Snippet {\n");
    for (String field : block.values("given", ";")) {
      text.append("  ").append(field).append(";\n");
    }
    for (String line : block.key("extra")) {
      text.append(line).append('\n');
    }
    if (inMethod) {
      text.append("  void snippet() throws Exception {\n");
    }
    long offset = text.chars().filter(c -> c == '\n').count() - (block.line() - 1);
    text.append(block.code());
    text.append(inMethod ? "  }\n}\n" : "}\n");
    return new Source("Snippet", text.toString(), offset);
  }

  private static String typeName(String code) {
    Matcher m = PUBLIC_TYPE.matcher(code);
    return m.find() ? m.group(1) : "Snippet";
  }

  private static String numbered(String text) {
    String[] lines = text.split("\n", -1);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < lines.length; i++) {
      out.append(String.format(Locale.ROOT, "%4d  %s%n", i + 1, lines[i]));
    }
    return out.toString();
  }

  /** A compilation unit held in memory. */
  private static final class StringSource extends SimpleJavaFileObject {
    private final String text;

    StringSource(String typeName, String text) {
      super(URI.create("string:///" + typeName + Kind.SOURCE.extension), Kind.SOURCE);
      this.text = text;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }
  }

  /** Compiled classes go to memory that is dropped: only the diagnostics matter. */
  private static final class DroppedClasses extends ForwardingJavaFileManager<JavaFileManager> {
    DroppedClasses(JavaFileManager files) {
      super(files);
    }

    @Override
    public JavaFileObject getJavaFileForOutput(
        Location location, String className, JavaFileObject.Kind kind, FileObject sibling) {
      return new SimpleJavaFileObject(
          URI.create("mem:///" + className.replace('.', '/') + kind.extension), kind) {
        @Override
        public OutputStream openOutputStream() {
          return new ByteArrayOutputStream();
        }
      };
    }

    @Override
    public void close() {
      // the shared file manager is closed once, after every test
    }
  }
}
