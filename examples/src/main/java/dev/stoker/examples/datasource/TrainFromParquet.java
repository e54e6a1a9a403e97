package dev.stoker.examples.datasource;

import dev.stoker.examples.JobEnd;
import dev.stoker.examples.demo.Mlp;
import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.spark.StokerSpark;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The DataSource read API in a few lines: Parquet of 28x28 images ({@code pixels}, 784 bytes) and
 * labels ({@code label}) read with {@code format("stoker")} as 2 ranks of 64-row batches, and a
 * softmax regression trained on them data-parallel, its gradients averaged across the ranks at
 * every step. The batch options are given once, to the read: {@code StokerSpark} recognises the
 * read and streams each rank's planned row groups straight into that rank's one loader, which keeps
 * a shard cache for the epochs after the second.
 *
 * <pre>{@code
 * spark-submit --class dev.stoker.examples.datasource.TrainFromParquet \
 *     stoker-examples-*-spark.jar /data/fashion-mnist-parquet/train 3
 * }</pre>
 */
public final class TrainFromParquet {
  private static final int RANKS = 2;
  private static final int BATCH = 64;

  private TrainFromParquet() {}

  /** Trains for {@code epochs} epochs and returns rank 0's mean loss per epoch. */
  public static List<Double> train(SparkSession spark, String path, int epochs) {
    Dataset<Row> batches =
        spark
            .read()
            .format("stoker")
            .option("batchSize", BATCH)
            .option("worldSize", RANKS)
            .option("shuffle", true)
            .option("seed", 42)
            .option("dropLast", true)
            .load(path)
            .select("pixels", "label");

    return StokerSpark.on(batches)
        .tensor("pixels", DType.UINT8, 784)
        .scalar("label", DType.INT64)
        .normalize("pixels", new double[] {0.2860}, new double[] {0.3530}) // Fashion-MNIST's
        .option("epochs", Integer.toString(epochs)) // the cache, if any, while epoch 0 streams
        .run(
            (rank, loader) -> {
              Mlp model = new Mlp(784, 0, 10, 42); // the same start on every rank
              float[] x = new float[BATCH * 784];
              int[] y = new int[BATCH];
              List<Double> losses = new ArrayList<>();
              for (int epoch = 0; epoch < epochs; epoch++) {
                double loss = 0;
                for (Batch batch : loader.epoch(epoch)) {
                  batch.column("pixels").asFloatBuffer().get(x, 0, batch.size() * 784);
                  for (int r = 0; r < batch.size(); r++) {
                    y[r] = (int) batch.getLong(1, r, 0);
                  }
                  loss += model.backward(x, y, batch.size());
                  model.step(rank.allReduceMean(model.gradients()), 0.01f, 0.9f);
                }
                losses.add(loss / loader.batchesPerEpoch());
              }
              return losses;
            })
        .result(0);
  }

  /** {@code TrainFromParquet PATH [EPOCHS]}: prints the mean loss of every epoch. */
  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 2) {
      System.err.println(
          "usage: TrainFromParquet PATH [EPOCHS] (got "
              + args.length
              + " arguments; PATH: Parquet with pixels as 784-byte binary and an integer label)");
      System.exit(2);
    }
    String epochs = args.length > 1 ? args[1] : "3";
    if (!epochs.matches("[1-9][0-9]{0,3}")) {
      System.err.println("EPOCHS: '" + epochs + "' (expected: a whole number from 1 to 9999)");
      System.exit(2);
    }
    SparkSession spark = SparkSession.builder().appName("stoker-train-from-parquet").getOrCreate();
    JobEnd.run(
        spark,
        () -> {
          List<Double> losses = train(spark, args[0], Integer.parseInt(epochs));
          for (int epoch = 0; epoch < losses.size(); epoch++) {
            System.out.printf("epoch %d: loss %.4f%n", epoch + 1, losses.get(epoch));
          }
        });
  }
}
