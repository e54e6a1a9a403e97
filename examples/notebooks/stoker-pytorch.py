# Databricks notebook source
# MAGIC %md
# MAGIC # Stoker for PyTorch in Python
# MAGIC
# MAGIC Stoker's loader runs in the executors' JVMs and hands every rank of a barrier stage its
# MAGIC batches as PyTorch tensors, through shared memory: no row passes through Spark's Arrow
# MAGIC writer, Python objects or a socket. Every rank gets the same number of equally shaped
# MAGIC batches per epoch, in an order that is a function of the seed and the epoch. This notebook,
# MAGIC top to bottom:
# MAGIC
# MAGIC 1. writes a small image dataset as Parquet (synthetic 28x28 grey images in 10 classes),
# MAGIC    unless the folder already holds one;
# MAGIC 2. reads it with `stoker.torch.read` (a `spark.read.format("stoker")` read, one handle row
# MAGIC    per rank);
# MAGIC 3. trains softmax regression with PyTorch on 2 ranks, gradients averaged with
# MAGIC    `torch.distributed` (gloo) every step, every epoch in one barrier stage;
# MAGIC 4. tests the model on images it has not seen.
# MAGIC
# MAGIC **Attach Stoker first**:
# MAGIC
# MAGIC - the runtime jar, as a cluster library (*Compute* > the cluster > *Libraries* > *Install
# MAGIC   new*): *Maven* `dev.stoker:stoker-spark-runtime-3.5_2.12:0.1.0-SNAPSHOT` for Spark 3.5
# MAGIC   (Databricks Runtime 14.3 LTS to 16.4 LTS; `stoker-spark-runtime-4.0_2.13` for Spark 4), or
# MAGIC   the jar of a build uploaded (`spark-runtime/target/stoker-spark-runtime-3.5_2.12-<version>.jar`,
# MAGIC   also inside the wheel under `stoker/jars/`);
# MAGIC - the Python package: `pip wheel ./python` after `mvn package` in a checkout gives
# MAGIC   `stoker-<version>-py3-none-any.whl`; install it as a cluster library (*Upload* > *Python
# MAGIC   Whl*) so that the executors have it too.
# MAGIC
# MAGIC PyTorch comes with the Databricks Runtime for Machine Learning. The cluster: classic compute
# MAGIC in dedicated (single user) access mode (barrier stages are not offered in standard access
# MAGIC mode or on serverless) with at least 2 task slots.

# COMMAND ----------

# Stops here, with what to do, when Stoker's jars or its Python package are missing.
try:
    jar = spark._jvm.dev.stoker.spark.StokerVersion.describe()  # not callable when missing
except Exception as e:
    raise RuntimeError("Stoker's jar is not on the cluster: install stoker-spark-runtime as a "
                       "cluster library (see the first cell), then detach and re-attach") from e
try:
    import stoker.torch as st
except ImportError as e:
    raise RuntimeError("the stoker Python package is missing: install its wheel as a cluster "
                       "library (see the first cell)") from e
import torch

print(f"{jar}; Spark {spark.version}, PyTorch {torch.__version__}, "
      f"{spark.sparkContext.defaultParallelism} task slots")

# COMMAND ----------

dbutils.widgets.text("path", "dbfs:/tmp/stoker-pytorch", "Data folder")
dbutils.widgets.text("rows", "20000", "Training images to generate")
dbutils.widgets.text("epochs", "3", "Epochs")
data_path = dbutils.widgets.get("path").strip().rstrip("/")
train_rows = int(dbutils.widgets.get("rows").strip())
epochs = int(dbutils.widgets.get("epochs").strip())
train_path, test_path = data_path + "/train", data_path + "/test"
RANKS, BATCH = 2, 64

# COMMAND ----------

# MAGIC %md
# MAGIC ## 1. A small image dataset
# MAGIC
# MAGIC Each image is 784 bytes (28x28, uint8) with a bright band whose place depends on its label,
# MAGIC over noise. Written once; a folder that already holds the data is read as it is.

# COMMAND ----------

from pyspark.sql import functions as F


def images(rows, seed):
    band = "concat(unhex(repeat('00', 78 * label)), unhex(repeat('C8', 78)), " \
           "unhex(repeat('00', 784 - 78 * (label + 1))))"
    return (spark.range(rows, numPartitions=4)
            .withColumn("label", (F.abs(F.hash("id", F.lit(seed))) % 10).cast("int"))
            .withColumn("pixels", F.expr(band))
            .select("pixels", "label"))


def exists(path):
    try:
        spark.read.parquet(path).limit(1).count()
        return True
    except Exception:
        return False


if not exists(train_path):
    images(train_rows, 1).write.mode("overwrite").parquet(train_path)
    images(max(train_rows // 5, RANKS * BATCH), 2).write.mode("overwrite").parquet(test_path)
display(spark.read.parquet(train_path).groupBy("label").count().orderBy("label"))

# COMMAND ----------

# MAGIC %md
# MAGIC ## 2. Per-rank batches as tensors
# MAGIC
# MAGIC `stoker.torch.read` is `spark.read.format("stoker")` with the loader's options, as one
# MAGIC handle row per rank. A barrier `mapInArrow` over it runs one task per rank; inside,
# MAGIC `stoker.torch.batches` maps that rank's shared-memory slots and yields a dict of tensors
# MAGIC per batch: `pixels` uint8 `[64, 784]`, normalized on the way to float32, and `label`.

# COMMAND ----------

import pyarrow as pa


def peek(handles):
    with st.batches(handles) as loader:
        first = next(iter(loader))
        yield pa.RecordBatch.from_pydict({
            "rank": [loader.rank], "batches": [len(loader)], "dropped_rows": [loader.dropped_rows],
            "pixels": [str(tuple(first["pixels"].shape)) + " " + str(first["pixels"].dtype)]})


ranks = st.read(spark, train_path, columns=["pixels", "label"], batchSize=BATCH,
                worldSize=RANKS, shuffle=True, seed=42, epoch=0, dropLast=True)
display(ranks.mapInArrow(peek, "rank long, batches long, dropped_rows long, pixels string",
                         barrier=True).orderBy("rank"))

# COMMAND ----------

# MAGIC %md
# MAGIC ## 3. Training on 2 ranks
# MAGIC
# MAGIC All epochs run in one barrier stage started by `st.run`, Stoker's launcher, as `torchrun`
# MAGIC would start them (`TorchDistributor`'s `num_processes` and `use_gpu`): each rank's
# MAGIC environment has `RANK`, `WORLD_SIZE`, `MASTER_ADDR` and `MASTER_PORT`, so
# MAGIC `init_process_group("gloo")` needs no arguments, and `train` gets its rank's loader, kept in
# MAGIC the JVM from one epoch to the next (the read's `epoch=0`, then 1, 2...: each rank's rows in a
# MAGIC new order, a function of the seed and the epoch). The ranks average their gradients every
# MAGIC step and stay in step because every rank gets the same number of batches. Rank 0's return
# MAGIC value (the weights, and every rank's steps and losses) comes back to the notebook. With a
# MAGIC GPU per task (`spark.task.resource.gpu.amount`), batches go to it on a side stream.

# COMMAND ----------

import io

USE_GPU = bool(spark.sparkContext.getConf().get("spark.task.resource.gpu.amount", ""))


def train(loader, epochs):
    import datetime

    import torch.distributed as dist

    dist.init_process_group("gloo", timeout=datetime.timedelta(minutes=5))
    try:
        torch.manual_seed(0)
        model = torch.nn.Linear(784, 10).to("cuda" if USE_GPU else "cpu")
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        steps, losses = [], []
        for _ in range(epochs):
            total, count = 0.0, 0
            for batch in loader:
                loss = torch.nn.functional.cross_entropy(model(batch["pixels"]),
                                                         batch["label"].long())
                opt.zero_grad()
                loss.backward()
                for p in model.parameters():
                    grad = p.grad.cpu()
                    dist.all_reduce(grad)
                    p.grad.copy_(grad / dist.get_world_size())
                opt.step()
                total, count = total + float(loss), count + 1
            steps.append(count)
            losses.append(total / max(count, 1))
        per_rank = [None] * dist.get_world_size()
        dist.all_gather_object(per_rank, (steps, losses))
        out = io.BytesIO()
        torch.save({k: v.cpu() for k, v in model.state_dict().items()}, out)
        return {"per_rank": per_rank, "state": out.getvalue()}
    finally:
        dist.destroy_process_group()


frame = st.read(spark, train_path, columns=["pixels", "label"], batchSize=BATCH,
                worldSize=RANKS, shuffle=True, seed=42, epoch=0, dropLast=True)
result = st.run(frame, train, epochs, num_processes=RANKS, use_gpu=USE_GPU,
                normalize={"pixels": ([0.25], [0.4])})
state = result["state"]
history = [(e + 1, [steps[e] for steps, _ in result["per_rank"]],
            sum(losses[e] for _, losses in result["per_rank"]) / len(result["per_rank"]))
           for e in range(epochs)]
display(spark.createDataFrame([(e, str(s), l) for e, s, l in history],
                              "epoch int, steps_per_rank string, mean_loss double"))

# COMMAND ----------

# MAGIC %md
# MAGIC ## 4. Images the model has not seen

# COMMAND ----------

model = torch.nn.Linear(784, 10)
model.load_state_dict(torch.load(io.BytesIO(state)))
test = spark.read.parquet(test_path).toPandas()
import numpy as np

x = torch.from_numpy(np.frombuffer(b"".join(test["pixels"]), np.uint8).reshape(-1, 784).copy())
x = (x.float() / 255 - 0.25) / 0.4
accuracy = float((model(x).argmax(1) == torch.tensor(test["label"].values)).float().mean())
print(f"test accuracy: {accuracy:.3f} on {len(test)} images")

# COMMAND ----------

# MAGIC %md
# MAGIC ## 5. Token sequences, packed
# MAGIC
# MAGIC Text becomes documents of token ids once, with the SQL function `stoker_tokenize` (GPT-2's
# MAGIC byte-pair encoding, whose vocabulary ships in Stoker's jars); the `pack` option then
# MAGIC concatenates each epoch's documents and cuts them into rows of 64 tokens, every token in one
# MAGIC row on one rank. A rank gets `input_ids`, `position_ids` (restarting at each document),
# MAGIC `document_ids` (for attention that does not cross documents) and `labels` as
# MAGIC `[batch, 64]` tensors (`docs/tokens.md`; `examples/python/train_tokens.py` trains a small
# MAGIC transformer on them).

# COMMAND ----------

from pyspark.sql.types import ArrayType, IntegerType

spark.udf.registerJavaFunction("stoker_tokenize", "dev.stoker.spark.Tokenize",
                               ArrayType(IntegerType()))
tokens_path = data_path + "/tokens"
if not exists(tokens_path):
    (spark.range(2000, numPartitions=4)
     .selectExpr("concat('Fortune ', id, ': ', repeat('you will read many documents. ', "
                 "cast(id % 9 as int))) as text")
     .selectExpr("stoker_tokenize(text, 'r50k_base') as tokens")
     .write.mode("overwrite").parquet(tokens_path))


def peek_tokens(handles):
    with st.batches(handles) as loader:
        first = next(iter(loader))
        yield pa.RecordBatch.from_pydict({
            "rank": [loader.rank], "batches": [len(loader)],
            "input_ids": [str(tuple(first["input_ids"].shape))],
            "documents_in_first_row": [int(first["document_ids"][0].max()) + 1]})


packed = st.read(spark, tokens_path, columns=["input_ids", "position_ids", "document_ids", "labels"],
                 pack=64, eodToken=50256, shiftLabels=True, batchSize=8, worldSize=RANKS,
                 shuffle=True, seed=42)
display(packed.mapInArrow(peek_tokens, "rank long, batches long, input_ids string, "
                          "documents_in_first_row long", barrier=True).orderBy("rank"))

# COMMAND ----------

# MAGIC %md
# MAGIC ## Next
# MAGIC
# MAGIC - **Your data**: point `stoker.torch.read` at your Parquet (fixed-length `binary` or
# MAGIC   `array<float>` columns; `shape.<column>=3,32,32` for images), with your `batchSize` and
# MAGIC   `worldSize` = the number of ranks.
# MAGIC - **Encoded images** (JPEG or PNG bytes in a `binary` column of any length): add the
# MAGIC   `transforms` option, e.g. `st.read(spark, path, columns=["image", "label"], batchSize=64,
# MAGIC   worldSize=2, transforms="decode(rgb)|randomResizedCrop(224)|hflip|normalize(imagenet)")`;
# MAGIC   the loader's workers decode and augment every sample, and a rank gets `image` as float32
# MAGIC   `[64, 3, 224, 224]` beside its labels (`docs/images.md`; `examples/python/train_images.py`).
# MAGIC - **Tokenized text** (`array<int>` token ids of any length): `pack=2048` (or `pad=2048`)
# MAGIC   with `eodToken` and `shiftLabels` makes fixed `[batch, 2048]` rows (section 5).
# MAGIC - **Tensors outlive a step only as copies**: a batch's tensors are views of a slot that
# MAGIC   holds the next batches later; `clone()` what you keep.
# MAGIC - **Failures**: end the barrier stage with a shuffle (e.g. `.repartition(1)` before
# MAGIC   `collect()`) for Spark to retry it when a task fails; a result stage is not retried.
# MAGIC - **Clean up**: `dbutils.fs.rm(data_path, True)` removes the generated data.
