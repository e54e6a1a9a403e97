package dev.stoker.examples.cli;

import dev.stoker.loader.bench.ReferenceWorkloads;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Option converters whose errors say the value and what is allowed. */
final class Converters {
  private Converters() {}

  /** A whole number >= 1. */
  static final class Positive implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      return atLeast(value, 1);
    }
  }

  /** A whole number >= 0. */
  static final class NonNegative implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      return atLeast(value, 0);
    }
  }

  /** {@code true} or {@code false}. */
  static final class Bool implements ITypeConverter<Boolean> {
    @Override
    public Boolean convert(String value) {
      String text = value.trim().toLowerCase(Locale.ROOT);
      if (!text.equals("true") && !text.equals("false")) {
        throw new TypeConversionException("'" + value + "' (expected: true or false)");
      }
      return Boolean.valueOf(text);
    }
  }

  /** The name of a reference workload. */
  static final class WorkloadName implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      List<String> names = new ArrayList<>(ReferenceWorkloads.NAMES);
      names.addAll(BenchCommand.SPARK_WORKLOADS);
      if (!names.contains(value)) {
        throw new TypeConversionException("'" + value + "' (expected one of: "
            + String.join(", ", names) + ")");
      }
      return value;
    }
  }

  private static int atLeast(String value, int least) {
    int number;
    try {
      number = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + value + "' (expected: a whole number >= " + least
          + ")");
    }
    if (number < least) {
      throw new TypeConversionException(value + " (expected: >= " + least + ")");
    }
    return number;
  }
}
