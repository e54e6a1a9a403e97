// Databricks notebook source
// MAGIC %md
// MAGIC # Stoker quickstart
// MAGIC
// MAGIC Stoker turns a Spark DataFrame into fixed-shape batches for training: every task of a
// MAGIC barrier stage is one training rank, and every rank gets the same number of equally shaped
// MAGIC batches per epoch, in a deterministic order. This notebook, top to bottom:
// MAGIC
// MAGIC 1. writes a small image dataset as Parquet (synthetic 28x28 grey images in 10 classes),
// MAGIC    unless the folder already holds one;
// MAGIC 2. reads it with `spark.read.format("stoker")` as per-rank batches;
// MAGIC 3. measures how fast the loader delivers batches with 0, 1 and 2 worker threads, and what
// MAGIC    it says the bottleneck is;
// MAGIC 4. trains a small model (softmax regression, in plain Scala) on 2 ranks for a few epochs
// MAGIC    and tests it on images it has not seen.
// MAGIC
// MAGIC **Attach Stoker first**, as a cluster library (*Compute* > the cluster > *Libraries* >
// MAGIC *Install new*), one of:
// MAGIC
// MAGIC - *Maven*, coordinate `dev.stoker:stoker-spark-runtime-3.5_2.12:0.1.0-SNAPSHOT` (with the
// MAGIC   release you use, and under *Repository* the repository it is published to, if not Maven
// MAGIC   Central): one jar with everything Stoker needs beyond Spark;
// MAGIC - *Upload* (or a workspace file / volume path) of that jar from a build:
// MAGIC   `spark-runtime/target/stoker-spark-runtime-3.5_2.12-<version>.jar`.
// MAGIC
// MAGIC Pick the one for the cluster's Spark: `3.5_2.12` for Spark 3.5 on Scala 2.12 (Databricks
// MAGIC Runtime 14.3 LTS to 16.4 LTS), `4.0_2.13` (the `-Pspark-4` build) for Spark 4 on Scala 2.13
// MAGIC (Databricks Runtime 17). Then attach this notebook to the cluster and run all cells.
// MAGIC
// MAGIC The cluster: classic compute in dedicated (single user) access mode, since the training
// MAGIC runner uses Spark's barrier execution, which standard (shared) access mode and serverless
// MAGIC compute do not offer. Training with 2 ranks needs 2 free task slots at once (a barrier
// MAGIC stage starts all its tasks together): a single-node cluster with 2 or more cores will do.

// COMMAND ----------

// Stops here, with what to do, when Stoker's jars are not attached to the cluster.
for ((className, jar) <- Seq("dev.stoker.spark.StokerSpark" -> "stoker-spark-runtime",
    "dev.stoker.loader.DataLoader" -> "stoker-spark-runtime")) {
  try Class.forName(className)
  catch {
    case e: ClassNotFoundException => throw new IllegalStateException(s"$className is missing: "
      + s"install $jar as a cluster library (see the first cell), then detach and re-attach "
      + "this notebook", e)
  }
}
println(s"Spark ${spark.version}, Scala ${scala.util.Properties.versionNumberString}, "
  + s"${sc.defaultParallelism} task slots")

// COMMAND ----------

import dev.stoker.loader.{DType, DataLoader, LoaderOptions}
import dev.stoker.spark.{RankContext, RankFunction, StokerSpark}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.functions._
import spark.implicits._

// COMMAND ----------

// MAGIC %md
// MAGIC ## 1. A dataset
// MAGIC
// MAGIC The widgets at the top of the notebook choose the folder (any path Spark can write:
// MAGIC `dbfs:/...`, a Unity Catalog volume `/Volumes/<catalog>/<schema>/<volume>/...`, `s3://...`)
// MAGIC and how many training images to generate. The notebook writes `train/` and `test/` there
// MAGIC unless they exist; delete the folder to generate them again. To use your own images
// MAGIC instead, put Parquet files with an `image` column (`binary`, 784 bytes: 28x28 pixels, one
// MAGIC byte each) and a `label` column (`int`, 0 to 9) in `train/` and `test/`.

// COMMAND ----------

dbutils.widgets.text("path", "dbfs:/tmp/stoker-quickstart", "Data folder")
dbutils.widgets.text("rows", "60000", "Training images to generate")

val dataPath = dbutils.widgets.get("path").trim.stripSuffix("/")
val trainPath = s"$dataPath/train"
val testPath = s"$dataPath/test"
val trainRows = dbutils.widgets.get("rows").trim.toLong
val ranks = 2        // training ranks: the tasks of one barrier stage
val batchSize = 64

// COMMAND ----------

// One fixed pattern of bright pixels per class; an image is its class's pattern, a third of its
// pixels flipped, plus noise. The seed makes every image reproducible.
val syntheticImage = udf { (seed: Long, label: Int) =>
  val pattern = new java.util.Random(label)
  val noise = new java.util.SplittableRandom(seed)
  val pixels = new Array[Byte](28 * 28)
  var p = 0
  while (p < pixels.length) {
    val bright = (pattern.nextInt(4) == 0) != (noise.nextInt(3) == 0)
    pixels(p) = (if (bright) 128 + noise.nextInt(128) else noise.nextInt(128)).toByte
    p += 1
  }
  pixels
}

def writeImages(path: String, rows: Long, firstSeed: Long): Unit =
  spark.range(firstSeed, firstSeed + rows, 1, 4)
    .withColumn("label", pmod(hash(col("id")), lit(10)))
    .select(syntheticImage(col("id"), col("label")).as("image"), col("label"))
    .write.mode("overwrite").parquet(path)

def pathExists(path: String): Boolean = {
  val folder = new Path(path)
  folder.getFileSystem(sc.hadoopConfiguration).exists(folder)
}

if (!pathExists(trainPath)) writeImages(trainPath, trainRows, 0L)
if (!pathExists(testPath)) writeImages(testPath, trainRows / 6, 1L << 40)   // seeds training never saw

display(spark.read.parquet(trainPath).groupBy("label").count().orderBy("label"))

// COMMAND ----------

// MAGIC %md
// MAGIC ## 2. Parquet as per-rank batches
// MAGIC
// MAGIC `format("stoker")` plans from the Parquet footers alone (no Spark job, no shuffle): the
// MAGIC result has exactly `worldSize` partitions, partition r being rank r, each a stream of
// MAGIC batches of exactly `batchSize` rows, the same number on every rank (with `dropLast` the
// MAGIC rows that do not fill a batch on every rank are left out). Do not filter the result: that
// MAGIC would remove rows from the fixed batches. The same read works from Python and SQL with
// MAGIC string options.

// COMMAND ----------

val trainBatches = spark.read.format("stoker")
  .option("batchSize", batchSize).option("worldSize", ranks)
  .option("shuffle", true).option("seed", 42).option("dropLast", true)
  .load(trainPath)
  .select("image", "label")

println(s"${trainBatches.rdd.getNumPartitions} partitions, one per rank")
display(trainBatches.groupBy(spark_partition_id().as("rank")).count().orderBy("rank"))

// COMMAND ----------

// MAGIC %md
// MAGIC ## 3. Throughput per configuration
// MAGIC
// MAGIC `StokerSpark.on(df)` runs a function on every rank, in a barrier stage, with a `DataLoader`
// MAGIC over the rank's rows. Over a `format("stoker")` read, each rank streams its planned row
// MAGIC groups from the files into its loader (the first batch waits for one shuffle window, not
// MAGIC the whole rank), and keeps a shard cache on its executor's local disk for the epochs after
// MAGIC the second when the disk keeps pace. Below, each rank reads every pixel of every batch
// MAGIC for two epochs, once per number of loader worker threads (`numWorkers`, 0 = the rank's own
// MAGIC thread). The load report gives, per rank, samples per second and the bottleneck verdict of
// MAGIC the last epoch: `pipeline-bound` means the consumer waited for data (here it does almost
// MAGIC nothing, so the loader sets the pace), `compute-bound` that batches were ready before they
// MAGIC were asked for.

// COMMAND ----------

// Reads every pixel of every batch for two epochs: the loader's own pace, no model to wait for.
val readEveryPixel: RankFunction[Long] = (rank: RankContext, loader: DataLoader) => {
  var sum = 0L
  var epoch = 0
  while (epoch < 2) {
    val batches = loader.epoch(epoch).iterator()
    while (batches.hasNext) {
      val images = batches.next().column("image")
      while (images.hasRemaining) sum += images.get() & 0xff
    }
    epoch += 1
  }
  sum
}

def loaderOptions(workers: Int): LoaderOptions = {
  val options = LoaderOptions.builder().batchSize(batchSize).shuffle(true).seed(42)
    .dropLast(true).numWorkers(workers)
  if (workers > 0) options.prefetchFactor(4).persistentWorkers(true)
  options.build()
}

val throughput = for (workers <- Seq(0, 1, 2)) yield {
  val report = StokerSpark.on(trainBatches)
    .tensor("image", DType.UINT8, 1, 28, 28).scalar("label", DType.INT32)
    .options(loaderOptions(workers)).worldSize(ranks)
    .run(readEveryPixel).report()
  println(report)
  (0 until report.worldSize).map { r =>
    val rank = report.rank(r)
    (workers, r, math.round(rank.samplesPerSecond), math.round(rank.waitFraction * 100),
      rank.verdict)
  }
}

display(throughput.flatten
  .toDF("numWorkers", "rank", "samplesPerSecond", "waitedPercent", "verdict"))

// COMMAND ----------

// MAGIC %md
// MAGIC ## 4. Training on 2 ranks
// MAGIC
// MAGIC Softmax regression (one weight per pixel and class, plus a bias per class) with plain SGD,
// MAGIC as each rank of a data-parallel (DDP) job runs it: every rank computes the gradient on its
// MAGIC own batch, `RankContext.allReduceMean` averages the gradients over the ranks, and every
// MAGIC rank takes the same step, so the ranks keep identical models. The all-reduce runs over TCP
// MAGIC connections between the ranks, made on its first call (one Spark barrier message, about a
// MAGIC second); each later call costs a network round trip. Loss and accuracy are summed over the
// MAGIC ranks once per epoch with `allReduceSum`. The function captures nothing from the notebook
// MAGIC but its two arguments: it is sent to the executors as it is.

// COMMAND ----------

/**
 * Trains for `epochs` epochs on the rank's batches, the gradients averaged over the ranks every
 * step; returns the loss and accuracy of every epoch over all ranks (loss, accuracy, loss, ...)
 * and the final model: 10 x 784 weights, then 10 biases.
 */
def softmaxRegression(epochs: Int, learningRate: Float)
    : RankFunction[(Array[Double], Array[Float])] =
  (rank: RankContext, loader: DataLoader) => {
    val pixels = 28 * 28
    val classes = 10
    val model = new Array[Float](classes * pixels + classes)
    val gradient = new Array[Float](model.length)
    val x = new Array[Float](pixels)
    val score = new Array[Double](classes)
    val history = new Array[Double](2 * epochs)
    var epoch = 0
    while (epoch < epochs) {
      val totals = new Array[Double](3)   // loss, correct, seen
      val batches = loader.epoch(epoch).iterator()
      while (batches.hasNext) {
        val batch = batches.next()
        val images = batch.column("image")
        val labels = batch.column("label").asIntBuffer()   // native order, as the column is
        java.util.Arrays.fill(gradient, 0f)
        var row = 0
        while (row < batch.size) {
          var p = 0
          while (p < pixels) { x(p) = (images.get(row * pixels + p) & 0xff) / 255f; p += 1 }
          // Scores, then softmax probabilities (shifted by the largest score, for stability).
          var c = 0
          var best = 0
          while (c < classes) {
            var s = model(classes * pixels + c).toDouble
            p = 0
            while (p < pixels) { s += model(c * pixels + p) * x(p); p += 1 }
            score(c) = s
            if (s > score(best)) best = c
            c += 1
          }
          val label = labels.get(row)
          val top = score(best)
          var total = 0.0
          c = 0
          while (c < classes) { score(c) = math.exp(score(c) - top); total += score(c); c += 1 }
          totals(0) -= math.log(score(label) / total)
          if (best == label) totals(1) += 1
          // The gradient of the cross-entropy: probability minus one-hot, times the input.
          c = 0
          while (c < classes) {
            val g = ((score(c) / total - (if (c == label) 1 else 0)) / batch.size).toFloat
            gradient(classes * pixels + c) += g
            p = 0
            while (p < pixels) { gradient(c * pixels + p) += g * x(p); p += 1 }
            c += 1
          }
          row += 1
        }
        totals(2) += batch.size
        rank.allReduceMean(gradient)   // in place: the mean over the ranks, the same on each
        var i = 0
        while (i < model.length) { model(i) -= learningRate * gradient(i); i += 1 }
      }
      rank.allReduceSum(totals)
      history(2 * epoch) = totals(0) / totals(2)
      history(2 * epoch + 1) = totals(1) / totals(2)
      epoch += 1
    }
    (history, model)
  }

// COMMAND ----------

val epochs = 3
val trained = StokerSpark.on(trainBatches)
  .tensor("image", DType.UINT8, 1, 28, 28).scalar("label", DType.INT32)
  .options(loaderOptions(workers = 1)).worldSize(ranks)
  .run(softmaxRegression(epochs, learningRate = 0.1f))

val (history, model) = trained.result(0)
require(java.util.Arrays.equals(model, trained.result(1)._2),
  "the ranks ended with different models")
println(trained.report())
display((0 until epochs).map(e => (e + 1, history(2 * e), history(2 * e + 1)))
  .toDF("epoch", "loss", "accuracy"))

// COMMAND ----------

// The trained model on images it has not seen, on the driver.
def predict(image: Array[Byte]): Int = {
  val pixels = 28 * 28
  val scores = (0 until 10).map { c =>
    var s = model(10 * pixels + c)
    var p = 0
    while (p < pixels) { s += model(c * pixels + p) * ((image(p) & 0xff) / 255f); p += 1 }
    s
  }
  scores.indexOf(scores.max)
}

val testImages = spark.read.parquet(testPath).select("image", "label")
  .as[(Array[Byte], Int)].collect()
val testAccuracy =
  testImages.count { case (image, label) => predict(image) == label }.toDouble / testImages.length
println(f"accuracy on ${testImages.length} unseen images: ${testAccuracy * 100}%.1f%%")

// COMMAND ----------

// MAGIC %md
// MAGIC ## Next
// MAGIC
// MAGIC - **Your data**: any DataFrame works with `StokerSpark.on(df)`; declare each column with
// MAGIC   `tensor(name, dtype, shape...)` (fixed-length `binary` for uint8, or fixed-length arrays
// MAGIC   of float, double, int or long) or `scalar(name, dtype)`. A DataFrame read with
// MAGIC   `format("stoker")` reaches the ranks without a shuffle; any other is shuffled once.
// MAGIC - **GPUs**: on a GPU cluster (with `spark.task.resource.gpu.amount` set), each rank's task
// MAGIC   gets a GPU; `.devices(CudaDevice.forAddress(_))` (`dev.stoker.loader.device`) makes
// MAGIC   the loader copy every batch to it from pinned memory, overlapping the copy with the step.
// MAGIC - **Tuning**: raise `numWorkers` while the verdict says `pipeline-bound`; the load report
// MAGIC   (`println(result.report())`) has the figures per rank.
// MAGIC - **Clean up**: `dbutils.fs.rm(dataPath, true)` removes the generated data.
