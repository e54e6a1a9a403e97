package dev.stoker.examples.notebook;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import scala.tools.nsc.Settings;
import scala.tools.nsc.interpreter.IMain;

/**
 * Scala code run cell by cell, as a notebook runs it: each cell is compiled and run in turn by
 * Scala's interpreter, seeing what earlier cells defined. Cells are wrapped in classes, as in
 * {@code spark-shell} and Databricks notebooks ({@code -Yrepl-class-based}), so that what a closure
 * captures from the notebook is what it would capture there. The classpath is the test's; the
 * interpreter's classes are loaded by {@link #classLoader()}, a child of the test's loader. Public
 * for the documentation's tests, which compile the docs' Scala blocks with it.
 */
public final class ScalaCells implements AutoCloseable {
  /** What running one cell gave: whether it compiled and ran, and what the interpreter wrote. */
  public record Outcome(boolean success, String result, String output) {}

  private final StringWriter cellOutput = new StringWriter();
  private final IMain interpreter;

  public ScalaCells() {
    Settings settings = new Settings();
    settings.processArgumentString("-Yrepl-class-based");
    settings.usejavacp().value_$eq(false);
    settings.classpath().value_$eq(classpath());
    interpreter = newInterpreter(settings, new PrintWriter(new Tee(cellOutput), true));
    Outcome started = run("()");
    if (!started.success()) {
      throw new IllegalStateException("the Scala interpreter did not start: " + started.output());
    }
  }

  /** Compiles and runs {@code code}; the interpreter's messages also go to standard output. */
  public Outcome run(String code) {
    cellOutput.getBuffer().setLength(0);
    Object result = interpreter.interpret(code);
    String text = cellOutput.toString();
    // Results.Success, Results.Error or Results.Incomplete (an unfinished statement).
    return new Outcome(String.valueOf(result).equals("Success"), String.valueOf(result), text);
  }

  /** Loads the classes the cells define; executors of a local Spark need it to run closures. */
  ClassLoader classLoader() {
    return interpreter.classLoader();
  }

  @Override
  public void close() {
    interpreter.close();
  }

  private static IMain newInterpreter(Settings settings, PrintWriter out) {
    try {
      try {
        // Scala 2.12: IMain(Settings, PrintWriter).
        return IMain.class
            .getConstructor(Settings.class, PrintWriter.class)
            .newInstance(settings, out);
      } catch (NoSuchMethodException e) {
        // Scala 2.13: IMain(Settings, ReplReporter), the reporter writing to out.
        Class<?> reporterType = Class.forName("scala.tools.nsc.interpreter.ReplReporter");
        Object reporter =
            Class.forName("scala.tools.nsc.interpreter.shell.ReplReporterImpl")
                .getConstructor(Settings.class, PrintWriter.class)
                .newInstance(settings, out);
        return IMain.class
            .getConstructor(Settings.class, reporterType)
            .newInstance(settings, reporter);
      }
    } catch (ReflectiveOperationException e) {
      Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
      throw new IllegalStateException("cannot create Scala's interpreter: " + cause, cause);
    }
  }

  /**
   * The test's classpath, with the entries of manifest-only jars (as Maven Surefire runs tests
   * with) listed in place of the jar, since the compiler reads no manifests.
   */
  public static String classpath() {
    Set<String> entries = new LinkedHashSet<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.isEmpty()) {
        entries.add(entry);
        entries.addAll(manifestClassPath(Paths.get(entry)));
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  private static Set<String> manifestClassPath(Path jar) {
    Set<String> entries = new LinkedHashSet<>();
    if (!Files.isRegularFile(jar) || !jar.toString().endsWith(".jar")) {
      return entries;
    }
    try (JarFile file = new JarFile(jar.toFile())) {
      Manifest manifest = file.getManifest();
      String listed = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
      if (listed != null) {
        URI base = jar.toAbsolutePath().toUri();
        for (String url : listed.trim().split("\\s+")) {
          entries.add(Paths.get(base.resolve(url)).toString());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the manifest of " + jar, e);
    }
    return entries;
  }

  /** Writes to a buffer and to standard output. */
  private static final class Tee extends Writer {
    private final StringWriter buffer;

    Tee(StringWriter buffer) {
      this.buffer = buffer;
    }

    @Override
    public void write(char[] chars, int offset, int length) {
      buffer.write(chars, offset, length);
      System.out.print(new String(chars, offset, length));
    }

    @Override
    public void flush() {
      System.out.flush();
    }

    @Override
    public void close() {
      flush();
    }
  }
}
