package dev.stoker.examples.cli;

import dev.stoker.tools.bench.ReferenceWorkloads;
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

  /** A count with an optional k (thousand) or m (million): 100k, 1m, 10m, 5000. */
  static final class Count implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      String text = value.trim().toLowerCase(Locale.ROOT);
      long scale = text.endsWith("k") ? 1000 : text.endsWith("m") ? 1_000_000 : 1;
      String digits = scale == 1 ? text : text.substring(0, text.length() - 1);
      long count;
      try {
        count = Long.parseLong(digits) * scale;
      } catch (NumberFormatException e) {
        count = -1;
      }
      if (count < 1 || count > Integer.MAX_VALUE - 8) {
        throw new TypeConversionException(
            "'" + value + "' (expected: a count >= 1, e.g. 5000, " + "100k or 10m, below 2^31)");
      }
      return (int) count;
    }
  }

  /** The name of a reference workload. */
  static final class WorkloadName implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      List<String> names = new ArrayList<>(ReferenceWorkloads.NAMES);
      names.addAll(BenchCommand.SPARK_WORKLOADS);
      names.add(dev.stoker.tools.spark.AllReduceBench.WORKLOAD);
      names.add(dev.stoker.tools.spark.TokensBench.WORKLOAD);
      if (!names.contains(value)) {
        throw new TypeConversionException(
            "'" + value + "' (expected one of: " + String.join(", ", names) + ")");
      }
      return value;
    }
  }

  private static int atLeast(String value, int least) {
    int number;
    try {
      number = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new TypeConversionException(
          "'" + value + "' (expected: a whole number >= " + least + ")");
    }
    if (number < least) {
      throw new TypeConversionException(value + " (expected: >= " + least + ")");
    }
    return number;
  }
}
