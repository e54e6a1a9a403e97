package dev.stoker.spark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * What Stoker's jar on the class path is: its version and the Spark and Scala lines it was built
 * for. A notebook or a Python process calls {@link #version()} to check that the jar is there
 * (through Py4J: {@code spark._jvm.dev.stoker.spark.StokerVersion.version()}) and matches its
 * Python package.
 */
public final class StokerVersion {
  private static final String RESOURCE = "stoker.properties";
  private static final Properties BUILD = load();

  private StokerVersion() {}

  /** The version of the jar, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String version() {
    return BUILD.getProperty("version");
  }

  /** The Spark version the jar was built against, e.g. {@code 3.5.3}. */
  public static String sparkVersion() {
    return BUILD.getProperty("spark");
  }

  /** The Scala line the jar was built for, e.g. {@code 2.12}. */
  public static String scalaVersion() {
    return BUILD.getProperty("scala");
  }

  /** One line: {@code stoker 0.1.0 (Spark 3.5.3, Scala 2.12)}. */
  public static String describe() {
    return "stoker " + version() + " (Spark " + sparkVersion() + ", Scala " + scalaVersion() + ")";
  }

  private static Properties load() {
    Properties properties = new Properties();
    try (InputStream in = StokerVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            RESOURCE
                + " is missing beside "
                + StokerVersion.class.getName()
                + ": the jar was not built by Maven (rebuild it with "
                + "mvn package)");
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + RESOURCE, e);
    }
    return properties;
  }
}
