"""``python -m stoker.bench``: batches delivered as PyTorch tensors in Python on N ranks, four ways
over the same Parquet, ``--epochs`` epochs each, alternating, the median of ``--repeats`` runs
each after ``--warmups`` runs (the JVM compiles the loader's loops meanwhile):

- ``stoker``: ``stoker.torch.read`` + a barrier ``mapInArrow`` iterating ``stoker.torch.batches``
  (the loader's slots in shared memory, the tensors views of them), every epoch in that one stage;
- ``baseline``: the same ``format("stoker")`` read through a barrier ``mapInArrow`` the way
  docs/datasource.md shows: Arrow batches of ``batchSize`` rows, NumPy arrays built row by row; a
  job per epoch;
- ``jvm_read``: the same read consumed in the JVM (no Python at all), a job per epoch, as the
  DataSource reads epochs;
- ``jvm_stage``: every epoch of it in one JVM task per rank, its loader kept from one to the
  next, as ``stoker`` does (no Python at all).

Each way ends with a uint8 tensor ``[batchSize, 784]`` and a label tensor per batch. Each way's
rate is given twice: over the whole read (a Spark job: planning, the stage's start, the tasks),
and within the tasks (the slowest rank, from asking for its first batch to its last), which
leaves out what any Spark stage costs to start.

Beside them, in the same rounds, ``empty_stage``: a barrier ``mapInArrow`` on N ranks that does
nothing, what PySpark costs for a stage before and after any task's work. No way that hands
batches to Python from a PySpark stage takes less than that plus the JVM's own loop
(``jvm_stage`` within the tasks): ``stoker_ceiling_vs_jvm_read`` is what such a way would score
against ``jvm_read``. Prints one JSON object (``bin/stoker bench --workload python`` runs this).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional, Tuple

WIDTH = 784


def _session(jars: str, ranks: int, local_dir: str):
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return (SparkSession.builder.master(f"local[{ranks}]").appName("stoker-bench-python")
            .config("spark.jars", jars)
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.memory", "2g")
            .config("spark.local.dir", local_dir)
            .config("spark.python.worker.reuse", "true")
            .getOrCreate())


def _write(spark, path: str, rows: int) -> None:
    from pyspark.sql import functions as F

    byte = F.lpad(F.hex(F.col("id") % 251), 2, "0")
    (spark.range(0, rows, 1, 8)
     .select(F.unhex(F.repeat(byte, WIDTH)).alias("pixels"),
             (F.col("id") % 10).cast("int").alias("label"))
     .write.option("parquet.block.size", 16 << 20).parquet(path))


_NUM_WORKERS: Dict[str, str] = {}


def _options(batch_size: int, ranks: int, epoch: int) -> Dict[str, str]:
    return {"batchSize": str(batch_size), "worldSize": str(ranks), "shuffle": "true",
            "seed": "42", "epoch": str(epoch), "dropLast": "true", **_NUM_WORKERS}


def _ranks_out(frame, per_rank) -> Tuple[int, float]:
    """Runs ``per_rank`` on every rank: (rows over all ranks, the slowest rank's seconds)."""
    out = frame.mapInArrow(per_rank, "rows long, seconds double", barrier=True).collect()
    return sum(r["rows"] for r in out), max(r["seconds"] for r in out)


def _rank_row(rows: int, seconds: float):
    import pyarrow as pa

    return pa.RecordBatch.from_pydict({"rows": pa.array([rows], pa.int64()),
                                       "seconds": pa.array([seconds], pa.float64())})


def _stoker(spark, path: str, batch_size: int, ranks: int, epoch: int,
            epochs: int) -> Tuple[int, float]:
    import stoker.torch as st

    def per_rank(handles):
        rows = 0
        touched = 0
        start = time.perf_counter()
        with st.batches(handles) as loader:
            for _ in range(epochs):
                for batch in loader:
                    x, y = batch["pixels"], batch["label"]
                    touched += int(x[0, 0]) + int(y[0])
                    rows += x.shape[0]
        yield _rank_row(rows, time.perf_counter() - start)

    frame = st.ranks(spark.read.format("stoker").options(**_options(batch_size, ranks, epoch))
                     .load(path).select("pixels", "label"))
    return _ranks_out(frame, per_rank)


def _job_per_epoch(way):
    """``way`` (one epoch per job) run for ``epochs`` epochs: rows, and task seconds summed."""
    def epochs_of(spark, path: str, batch_size: int, ranks: int, epoch: int,
                  epochs: int) -> Tuple[int, float]:
        rows, seconds = 0, 0.0
        for e in range(epoch, epoch + epochs):
            got, took = way(spark, path, batch_size, ranks, e)
            rows, seconds = rows + got, seconds + took
        return rows, seconds
    return epochs_of


def _jvm_stage(spark, path: str, batch_size: int, ranks: int, epoch: int,
               epochs: int) -> Tuple[int, float]:
    frame = (spark.read.format("stoker").options(**_options(batch_size, ranks, epoch))
             .load(path).select("pixels", "label"))
    jvm_read = spark._jvm.dev.stoker.tools.spark.python.JvmRead
    rows, _, nanos = jvm_read.consumeInStage(frame._jdf, epochs)
    return int(rows), nanos / 1e9


def _empty_stage(spark, ranks: int) -> float:
    """Seconds of a barrier ``mapInArrow`` job on ``ranks`` one-row partitions that does nothing."""
    def per_rank(rows):
        for _ in rows:
            pass
        yield _rank_row(0, 0.0)

    start = time.perf_counter()
    spark.range(0, ranks, 1, ranks).mapInArrow(per_rank, "rows long, seconds double",
                                               barrier=True).collect()
    return time.perf_counter() - start


def _baseline(spark, path: str, batch_size: int, ranks: int, epoch: int) -> Tuple[int, float]:
    import numpy as np
    import torch

    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch_size))

    def per_rank(batches):
        rows = 0
        touched = 0
        start = time.perf_counter()
        for batch in batches:  # one pyarrow.RecordBatch per batch, as in docs/datasource.md
            x = torch.from_numpy(np.stack(
                [np.frombuffer(p, np.uint8) for p in batch.column("pixels").to_pylist()]))
            y = torch.from_numpy(batch.column("label").to_numpy())
            touched += int(x[0, 0]) + int(y[0])
            rows += x.shape[0]
        yield _rank_row(rows, time.perf_counter() - start)

    frame = (spark.read.format("stoker").options(**_options(batch_size, ranks, epoch))
             .load(path).select("pixels", "label"))
    return _ranks_out(frame, per_rank)


def _jvm_read(spark, path: str, batch_size: int, ranks: int, epoch: int) -> Tuple[int, float]:
    frame = (spark.read.format("stoker").options(**_options(batch_size, ranks, epoch))
             .load(path).select("pixels", "label"))
    rows, _, nanos = spark._jvm.dev.stoker.tools.spark.python.JvmRead.consume(frame._jdf)
    return int(rows), nanos / 1e9


def run(jars: str, rows: int, batch_size: int, ranks: int, repeats: int,
        progress: Callable[[str], None], num_workers: Optional[int] = None,
        epochs: int = 1, warmups: int = 3) -> dict:
    _NUM_WORKERS.clear()
    if num_workers is not None:
        _NUM_WORKERS["numWorkers"] = str(num_workers)
    work = tempfile.mkdtemp(prefix="stoker-bench-python-")
    spark = _session(jars, ranks, os.path.join(work, "spark"))
    spark.sparkContext.setLogLevel("WARN")
    try:
        path = os.path.join(work, "data")
        _write(spark, path, rows)
        ways = {"stoker": _stoker, "baseline": _job_per_epoch(_baseline),
                "jvm_read": _job_per_epoch(_jvm_read), "jvm_stage": _jvm_stage}
        seconds: Dict[str, List[float]] = {name: [] for name in ways}
        in_task: Dict[str, List[float]] = {name: [] for name in ways}
        empty: List[float] = []
        expected = (rows // (ranks * batch_size)) * ranks * batch_size * epochs
        for run_index in range(warmups + repeats):
            measured = run_index >= warmups
            line = []
            for name, way in ways.items():
                start = time.perf_counter()
                got, task_seconds = way(spark, path, batch_size, ranks, run_index * epochs,
                                        epochs)
                took = time.perf_counter() - start
                if got != expected:
                    raise RuntimeError(f"{name} delivered {got} rows (expected: {expected})")
                if measured:
                    seconds[name].append(took)
                    in_task[name].append(task_seconds)
                line.append(f"{name} {took:6.2f} s ({task_seconds:.2f} in the tasks)")
            took = _empty_stage(spark, ranks)
            if measured:
                empty.append(took)
            line.append(f"empty_stage {took:5.2f} s")
            progress((f"warm-up {run_index + 1}/{warmups}" if not measured
                      else f"run {run_index - warmups + 1}/{repeats}") + ": " + ", ".join(line))
        rate = {name: expected / statistics.median(values) for name, values in seconds.items()}
        task_rate = {name: expected / statistics.median(values)
                     for name, values in in_task.items()}
        empty_stage = statistics.median(empty)
        ceiling = expected / (empty_stage + statistics.median(in_task["jvm_stage"]))
        return {
            "workload": "python", "rows": expected, "ranks": ranks, "batch_size": batch_size,
            "num_workers": num_workers, "epochs": epochs, "warmups": warmups,
            "repeats": repeats,
            "stoker_rows_per_s": round(rate["stoker"]),
            "baseline_rows_per_s": round(rate["baseline"]),
            "jvm_read_rows_per_s": round(rate["jvm_read"]),
            "jvm_stage_rows_per_s": round(rate["jvm_stage"]),
            "stoker_vs_baseline": round(rate["stoker"] / rate["baseline"], 2),
            "stoker_vs_jvm_read": round(rate["stoker"] / rate["jvm_read"], 2),
            "stoker_vs_jvm_stage": round(rate["stoker"] / rate["jvm_stage"], 2),
            "stoker_in_task_rows_per_s": round(task_rate["stoker"]),
            "baseline_in_task_rows_per_s": round(task_rate["baseline"]),
            "jvm_read_in_task_rows_per_s": round(task_rate["jvm_read"]),
            "jvm_stage_in_task_rows_per_s": round(task_rate["jvm_stage"]),
            "in_task_stoker_vs_jvm_read": round(task_rate["stoker"] / task_rate["jvm_read"], 2),
            "in_task_stoker_vs_jvm_stage": round(task_rate["stoker"] / task_rate["jvm_stage"],
                                                 2),
            "empty_stage_seconds": round(empty_stage, 3),
            "stoker_ceiling_vs_jvm_read": round(ceiling / rate["jvm_read"], 2),
            "seconds": {name: [round(s, 3) for s in values] for name, values in seconds.items()},
            "in_task_seconds": {name: [round(s, 3) for s in values]
                                for name, values in in_task.items()},
        }
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stoker.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jars", required=True,
                        help="comma-separated Stoker jars (loader-core, spark-connector and tools)")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--num-workers", type=int, default=None,
                        help="the loader's numWorkers for every way (default: its own default)")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warmups", type=int, default=3,
                        help="runs of every way before those measured, while the JVM compiles "
                             "the loader's loops (default: 3)")
    parser.add_argument("--epochs", type=int, default=1,
                        help="epochs per run: in one stage for stoker and jvm_stage, a job each "
                             "for the others")
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error(f"--epochs: {args.epochs} (expected: at least 1)")
    if args.repeats < 1:
        parser.error(f"--repeats: {args.repeats} (expected: at least 1)")
    if args.warmups < 0:
        parser.error(f"--warmups: {args.warmups} (expected: at least 0)")
    if args.rows < args.ranks * args.batch_size:
        parser.error(f"--rows: {args.rows} (expected: at least ranks x batch size = "
                     f"{args.ranks * args.batch_size})")
    result = run(args.jars, args.rows, args.batch_size, args.ranks, args.repeats,
                 lambda line: print("stoker: " + line, file=sys.stderr, flush=True),
                 args.num_workers, args.epochs, args.warmups)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
