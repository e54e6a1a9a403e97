"""Encoded images through stoker.torch: JPEG bytes in Parquet, decoded and augmented by Stoker.

Writes a small table of JPEG photos (`image` binary of any length, `label` int), unless --data
already holds one, then reads it with `stoker.torch.read` and the `transforms` option: the loader's
workers in the executors' JVMs decode every JPEG, crop it at random to 224x224, flip it at random
and normalize it with ImageNet's mean and std, so that each rank gets `image` as float32
[batch, 3, 224, 224] and `label` as int32 [batch]. Each rank trains a small CNN a few steps
(gradients averaged across the ranks with torch.distributed, gloo) and reports its losses.

    spark-submit --jars spark-connector/target/stoker-spark-connector-<version>.jar,\
loader-core/target/stoker-loader-core-<version>.jar examples/python/train_images.py \
        [--data /tmp/stoker-images] [--steps 5] [--ranks 2]

or run it with `python` where PySpark is installed: it starts a local[--ranks] Spark with the
jars this checkout built (or those of STOKER_JARS, comma-separated). The photos are cut from
Debian's python3-skimage sample photographs with PIL (apt-get install python3-skimage
python3-pil), or drawn at random where they are missing.
"""

import argparse
import glob
import io
import os
import random
import sys

TRANSFORMS = "decode(rgb)|randomResizedCrop(224)|hflip|normalize(imagenet)"
PHOTOS = "/usr/lib/python3/dist-packages/skimage/data"
NAMES = ["astronaut.png", "chelsea.png", "coffee.png", "motorcycle_left.png",
         "motorcycle_right.png", "rocket.jpg"]


def jpeg_rows(count: int, seed: int = 0):
    """`count` (JPEG bytes, label) pairs about 500x375, cut from photographs, quality 90."""
    from PIL import Image

    rnd = random.Random(seed)
    photos = []
    for name in NAMES:
        try:
            photos.append(Image.open(os.path.join(PHOTOS, name)).convert("RGB"))
        except OSError:
            pass
    if not photos:  # no skimage: noise pictures, enough to run the pipeline
        photos = [Image.effect_noise((640, 480), 64).convert("RGB") for _ in range(3)]
    rows = []
    for i in range(count):
        label = i % len(photos)
        photo = photos[label]
        w, h = (500, 375) if rnd.random() < 0.75 else (375, 500)
        scale = rnd.uniform(0.5, 1.0)
        cw = min(photo.width, int(photo.height * w / h)) * scale
        ch = cw * h / w
        x, y = rnd.uniform(0, photo.width - cw), rnd.uniform(0, photo.height - ch)
        out = io.BytesIO()
        photo.resize((w, h), box=(x, y, x + cw, y + ch)).save(out, "JPEG", quality=90)
        rows.append((out.getvalue(), label))
    return rows


def session(ranks: int):
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("stoker-train-images")
    if "SPARK_HOME" not in os.environ and not os.environ.get("PYSPARK_SUBMIT_ARGS"):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        jars = os.environ.get("STOKER_JARS") or ",".join(
            sorted(p for p in glob.glob(f"{root}/{m}/target/stoker-{m}-*.jar")
                   if not p.endswith(("-sources.jar", "-tests.jar", "-spark.jar")))[0]
            for m in ("loader-core", "spark-connector"))
        builder = builder.master(f"local[{ranks}]").config("spark.jars", jars)
        # the local workers run this interpreter, which has PyArrow and stoker, not a "python3"
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return builder.getOrCreate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/tmp/stoker-images")
    parser.add_argument("--images", type=int, default=512)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    spark = session(args.ranks)
    if not glob.glob(os.path.join(args.data, "*.parquet")):
        spark.createDataFrame(jpeg_rows(args.images), "image binary, label int") \
            .write.mode("overwrite").parquet(args.data)

    import pyarrow as pa
    import stoker.torch as st

    ranks, steps, batch = args.ranks, args.steps, args.batch_size
    frame = st.read(spark, args.data, columns=["image", "label"], batchSize=batch,
                    worldSize=ranks, shuffle=True, seed=42, epoch=0, dropLast=True,
                    numWorkers=2, transforms=TRANSFORMS)

    def train(handles):  # once per rank, in its barrier task
        import torch
        import torch.distributed as dist
        from pyspark import BarrierTaskContext

        context = BarrierTaskContext.get()
        rank = context.partitionId()
        leader = context.getTaskInfos()[0].address.split(":")[0]
        dist.init_process_group("gloo", init_method=f"tcp://{leader}:29517",
                                rank=rank, world_size=ranks)
        torch.manual_seed(0)  # the same first weights on every rank
        model = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 5, stride=4), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(4),
            torch.nn.Flatten(), torch.nn.Linear(128, 10))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        losses = []
        try:
            with st.batches(handles) as loader:
                for batch in loader:  # {"image": float32 [B, 3, 224, 224], "label": int32 [B]}
                    assert tuple(batch["image"].shape) == (batch["label"].shape[0], 3, 224, 224)
                    loss = torch.nn.functional.cross_entropy(
                        model(batch["image"]), batch["label"].long())
                    optimizer.zero_grad()
                    loss.backward()
                    for p in model.parameters():
                        dist.all_reduce(p.grad)
                        p.grad /= ranks
                    optimizer.step()
                    losses.append(float(loss))
                    if len(losses) == steps:
                        break
        finally:
            dist.destroy_process_group()
        yield pa.RecordBatch.from_pydict({"rank": [rank], "loss": [losses]})

    rows = frame.mapInArrow(train, "rank long, loss array<double>", barrier=True) \
        .repartition(1).collect()
    for row in sorted(rows, key=lambda r: r["rank"]):
        print(f"rank {row['rank']}: losses " + ", ".join(f"{x:.3f}" for x in row["loss"]))
    spark.stop()


if __name__ == "__main__":
    main()
