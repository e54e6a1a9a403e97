"""A user's training script, run by test_runtime_jar.py as a process of its own: a local[2]
session that gets Stoker either from this package's wheel (``--wheel``: stoker.spark's
configure_spark) or from its Maven coordinate (``--packages`` with ``--repository``), a Parquet
table, and DDP over gloo on two ranks with stoker.torch.run. Prints one JSON line: rank 0's steps,
whether the ranks' models agree, and the session's jars."""

import argparse
import datetime
import json
import os
import sys

ROWS = 640
BATCH = 32


def train(loader, lr):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    try:
        torch.manual_seed(0)
        model = DistributedDataParallel(torch.nn.Linear(4, 2))
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        steps = 0
        for batch in loader:
            loss = torch.nn.functional.cross_entropy(model(batch["x"]), batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
        checksum = torch.tensor([float(sum(p.detach().double().sum()
                                           for p in model.parameters()))])
        total = checksum.clone()
        dist.all_reduce(total)
        same = abs(total.item() - dist.get_world_size() * checksum.item()) < 1e-9
        return {"steps": steps, "same_model": same}
    finally:
        dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--wheel", action="store_true")
    parser.add_argument("--packages")
    parser.add_argument("--repository")
    args = parser.parse_args()

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import stoker.torch as st

    builder = (SparkSession.builder.master("local[2]").appName("stoker-two-ranks")
               .config("spark.ui.enabled", "false")
               .config("spark.driver.memory", "1g")
               .config("spark.local.dir", os.path.join(args.dir, "spark-local")))
    if args.wheel:
        from stoker.spark import configure_spark
        builder = configure_spark(builder)
    else:
        builder = (builder.config("spark.jars.packages", args.packages)
                   .config("spark.jars.repositories", args.repository)
                   .config("spark.jars.ivy", os.path.join(args.dir, "ivy")))
    spark = builder.getOrCreate()
    try:
        path = os.path.join(args.dir, "train")
        x = F.array(*[(F.col("id") * (i + 3) % 13).cast("float") for i in range(4)])
        spark.range(0, ROWS, 1, 2).select(x.alias("x"), (F.col("id") % 2).alias("label")) \
            .write.parquet(path)
        read = st.read(spark, path, batchSize=BATCH, worldSize=2, shuffle=True, seed=5,
                       dropLast=True)
        result = st.run(read, train, 0.05, num_processes=2)
        result["jars"] = spark.sparkContext.getConf().get("spark.jars", "")
        print("two-ranks job: " + json.dumps(result), flush=True)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
