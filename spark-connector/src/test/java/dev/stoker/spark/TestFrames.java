package dev.stoker.spark;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Small DataFrames for the tests, in partitions of given sizes: row {@code i} has {@code id = i}
 * and a float tensor {@code x} whose values are {@code i * 1000 + element}, so that every delivered
 * value says where it came from.
 */
public final class TestFrames {
  static final StructType SCHEMA =
      new StructType()
          .add("id", DataTypes.LongType, false)
          .add("x", DataTypes.createArrayType(DataTypes.FloatType, false), false);

  private TestFrames() {}

  /** Rows {@code 0 .. n-1} of {@code width} floats; partition {@code p} holds {@code sizes[p]}. */
  public static Dataset<Row> frame(SparkSession spark, int width, int... sizes) {
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    List<Integer> partitions = IntStream.range(0, sizes.length).boxed().toList();
    JavaRDD<Row> rows =
        context
            .parallelize(partitions, sizes.length)
            .mapPartitionsWithIndex(new Rows(sizes.clone(), width), true);
    return spark.createDataFrame(rows, SCHEMA);
  }

  static Row row(long id, int width) {
    float[] values = new float[width];
    for (int e = 0; e < width; e++) {
      values[e] = id * 1000 + e;
    }
    return RowFactory.create(id, values);
  }

  /** The rows of one partition. */
  private static final class Rows implements Function2<Integer, Iterator<Integer>, Iterator<Row>> {
    private static final long serialVersionUID = 1L;
    private final int[] sizes;
    private final int width;

    Rows(int[] sizes, int width) {
      this.sizes = sizes;
      this.width = width;
    }

    @Override
    public Iterator<Row> call(Integer partition, Iterator<Integer> ignored) {
      long first = 0;
      for (int p = 0; p < partition; p++) {
        first += sizes[p];
      }
      List<Row> rows = new ArrayList<>();
      for (int i = 0; i < sizes[partition]; i++) {
        rows.add(row(first + i, width));
      }
      return rows.iterator();
    }
  }
}
