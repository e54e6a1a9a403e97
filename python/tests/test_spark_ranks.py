"""Two ranks on local[2]: Stoker's batches as tensors in Python, a model trained with
torch.distributed (gloo) on them, a rank's Python worker killed mid-epoch, early exits; no slot
file left in /dev/shm and no loader thread left in the JVM after any of them."""

import glob
import time

import pytest

torch = pytest.importorskip("torch")
pa = pytest.importorskip("pyarrow")

import stoker.torch as st  # noqa: E402
from stoker import StokerError  # noqa: E402

ROWS = 1000
BATCH = 32
OPTIONS = dict(batchSize=BATCH, worldSize=2, shuffle=True, seed=7, dropLast=True, numWorkers=1)
# 1000 rows over 2 ranks: 500 each, 15 full batches of 32 (480 rows), 20 rows dropped per rank
BATCHES = 15


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory):
    from pyspark.sql import functions as F

    path = str(tmp_path_factory.mktemp("parquet") / "train")
    x = F.array(*[(F.col("id") * (i + 1) % 17).cast("float") for i in range(4)])
    (spark.range(0, ROWS, 1, 3)
     .select(x.alias("x"), (F.col("id") % 2).alias("label"), F.col("id"))
     .write.parquet(path))
    return path


def slot_files(spark):
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    return glob.glob(f"/dev/shm/stoker-shm-{pid}-*")


@pytest.fixture(autouse=True)
def nothing_left(spark):
    yield
    # A failed job's other tasks end shortly after the job does: wait for them (bounded)
    deadline = time.monotonic() + 60
    while (spark._jvm.dev.stoker.spark.parquet.OpenCounts.open("PYTHON_RANKS") > 0
           and time.monotonic() < deadline):
        time.sleep(0.2)
    assert spark._jvm.dev.stoker.spark.parquet.OpenCounts.open("PYTHON_RANKS") == 0
    assert slot_files(spark) == []


def ids_per_rank(spark, data, epoch, epochs=1, **options):
    """Each rank's sample ids in delivery order, read as tensors through shared memory: with
    ``epochs``, as many epochs in the one stage, their ids one after the other; ``options``
    beside the read's."""
    def per_rank(handles):
        with st.batches(handles) as loader:
            ids = []
            seen = []
            for _ in range(epochs):
                for batch in loader:
                    assert batch["x"].dtype == torch.float32 and batch["x"].shape == (BATCH, 4)
                    assert batch["label"].dtype == torch.int64 and batch["id"].shape == (BATCH,)
                    assert torch.equal(batch["label"], batch["id"] % 2)
                    ids.append(batch["id"].clone())
                seen.append(loader.epoch)
            yield pa.RecordBatch.from_pydict({
                "rank": [loader.rank], "batches": [len(loader)], "epochs": [seen],
                "dropped": [loader.dropped_rows], "ids": [torch.cat(ids).tolist()]})

    rows = (st.read(spark, data, epoch=epoch, **OPTIONS, **options)
            .mapInArrow(per_rank, "rank long, batches long, epochs array<long>, dropped long, "
                        "ids array<long>", barrier=True).collect())
    return {r["rank"]: r for r in rows}


def test_ranks_get_equal_full_batches_in_the_order_of_seed_and_epoch(spark, data):
    epoch0 = ids_per_rank(spark, data, 0)
    assert sorted(epoch0) == [0, 1]
    for rank in epoch0.values():
        assert rank["batches"] == BATCHES
        assert len(rank["ids"]) == BATCHES * BATCH
        assert rank["dropped"] == 40
    seen = epoch0[0]["ids"] + epoch0[1]["ids"]
    assert len(set(seen)) == len(seen), "a row delivered twice"

    # The same batches as the read's own columnar batches, consumed in the JVM's order
    jvm = (spark.read.format("stoker").options(**{k: str(v).lower() for k, v in OPTIONS.items()})
           .option("epoch", "0").load(data).select("id"))
    from pyspark.sql import functions as F
    per_partition = (jvm.withColumn("rank", F.spark_partition_id())
                     .groupBy("rank").agg(F.collect_list("id").alias("ids")).collect())
    for row in per_partition:
        assert row["ids"] == epoch0[row["rank"]]["ids"]

    again = ids_per_rank(spark, data, 0)
    epoch1 = ids_per_rank(spark, data, 1)
    assert again[0]["ids"] == epoch0[0]["ids"], "the order is a function of seed and epoch"
    assert epoch1[0]["ids"] != epoch0[0]["ids"]


def test_epochs_in_one_stage_reshuffle_each_ranks_rows_and_repeat_on_a_rerun(spark, data):
    three = ids_per_rank(spark, data, 4, epochs=3)
    rows = BATCHES * BATCH
    for rank in three.values():
        assert rank["epochs"] == [4, 5, 6]
        assert len(rank["ids"]) == 3 * rows, "every epoch the same number of full batches"
        epochs = [rank["ids"][e * rows:(e + 1) * rows] for e in range(3)]
        assert sorted(epochs[0]) == sorted(epochs[1]) == sorted(epochs[2]), "the rank's rows"
        assert epochs[0] != epochs[1] != epochs[2], "each epoch in its own order"
    assert three[0]["ids"][:rows] == ids_per_rank(spark, data, 4)[0]["ids"], \
        "the first epoch is the read's"
    assert ids_per_rank(spark, data, 4, epochs=3) == three, "a function of seed and epoch"


def test_the_global_order_plans_each_epoch_again_over_the_whole_input(spark, data):
    rows = BATCHES * BATCH
    both = ids_per_rank(spark, data, 2, epochs=2, epochOrder="global")
    for rank in both.values():
        assert rank["epochs"] == [2, 3]
        assert len(rank["ids"]) == 2 * rows, "every epoch the same number of full batches"
    first = {r: set(both[r]["ids"][:rows]) for r in both}
    second = {r: set(both[r]["ids"][rows:]) for r in both}
    assert len(first[0] | first[1]) == len(second[0] | second[1]) == 2 * rows, "rows once"
    assert second[0] != first[0], "rows moved between ranks"
    # epoch 3 in the one stage is what a read of epoch 3 reads, in the same order
    fresh = ids_per_rank(spark, data, 3)
    for r in both:
        assert both[r]["ids"][rows:] == fresh[r]["ids"]
    # and by default each rank keeps its rows
    kept = ids_per_rank(spark, data, 2, epochs=2)
    assert set(kept[0]["ids"][:rows]) == set(kept[0]["ids"][rows:])


def test_the_state_after_a_global_epoch_names_that_epochs_order():
    from stoker import _state
    start = _state.encode(_state.State(seed=7, flags=3, epoch=2, order_epoch=2, batch_size=32,
                                       window_rows=500, segments=((2, 0),),
                                       fingerprint=b"\x00\x00\x00\x00"))
    after = _state.decode(_state.after(start, 15, 15, order_follows_epoch=True))
    assert (after.epoch, after.order_epoch) == (3, 3)
    kept = _state.decode(_state.after(start, 15, 15))
    assert (kept.epoch, kept.order_epoch) == (3, 2), "the rank order keeps the read's"


def test_global_batches_are_the_same_on_one_and_two_ranks(spark, data):
    """Over two epochs: the read's, then the next one, planned again as a read of it would be."""
    def global_batches(world):
        def per_rank(handles):
            with st.batches(handles) as loader:
                ids = [batch["id"].tolist() for _ in range(2) for batch in loader]
                assert all(len(b) == 64 // world for b in ids)
                yield pa.RecordBatch.from_pydict({"rank": [loader.rank], "ids": [ids]})

        options = {k: v for k, v in OPTIONS.items() if k != "batchSize"}
        rows = (st.read(spark, data, epoch=1, globalBatchSize=64, **dict(options, worldSize=world))
                .mapInArrow(per_rank, "rank long, ids array<array<long>>", barrier=True)
                .collect())
        ranks = [r["ids"] for r in sorted(rows, key=lambda r: r["rank"])]
        return [sum((rank[b] for rank in ranks), []) for b in range(len(ranks[0]))]

    one = global_batches(1)
    assert len(one) == 2 * (ROWS // 64)
    assert len(set(sum(one[ROWS // 64:], []))) == ROWS // 64 * 64, "each row at most once"
    assert one[ROWS // 64:] != one[:ROWS // 64], "the next epoch in its own order"
    assert global_batches(2) == one


def train(kill_rank=None, kill_step=None, killed_marker=None, epochs=2):
    """A barrier function: trains softmax regression with gradients all-reduced by gloo, for
    ``epochs`` epochs in the one stage. With ``kill_rank``, that rank's Python worker kills
    itself at ``kill_step`` the first time (the marker file says it was done)."""
    def run(handles):
        import datetime
        import os
        import signal
        import socket

        import torch.distributed as dist
        from pyspark import BarrierTaskContext

        context = BarrierTaskContext.get()
        rank = context.partitionId()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        port = int(context.allGather(str(port))[0])
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                world_size=2, timeout=datetime.timedelta(seconds=60))
        try:
            torch.manual_seed(0)
            model = torch.nn.Linear(4, 2)
            opt = torch.optim.SGD(model.parameters(), lr=0.01)
            steps = 0
            with st.batches(handles, normalize={"x": ([8.0], [5.0])}) as loader:
                for _ in range(epochs):
                    for batch in loader:
                        if (rank == kill_rank and steps == kill_step
                                and not os.path.exists(killed_marker)):
                            open(killed_marker, "w").close()
                            os.kill(os.getpid(), signal.SIGKILL)
                        loss = torch.nn.functional.cross_entropy(model(batch["x"]),
                                                                 batch["label"])
                        opt.zero_grad()
                        loss.backward()
                        for p in model.parameters():
                            dist.all_reduce(p.grad)
                            p.grad /= 2
                        opt.step()
                        steps += 1
            checksum = float(sum(p.detach().double().sum() for p in model.parameters()))
        finally:
            dist.destroy_process_group()
        yield pa.RecordBatch.from_pydict({
            "rank": [rank], "steps": [steps], "checksum": [checksum],
            "retried": [killed_marker is not None and os.path.exists(killed_marker)]})
    return run


SCHEMA = "rank long, steps long, checksum double, retried boolean"


def test_two_ranks_train_with_gloo_the_same_number_of_steps(spark, data):
    rows = (st.read(spark, data, epoch=0, **OPTIONS)
            .mapInArrow(train(), SCHEMA, barrier=True).collect())
    assert sorted(r["rank"] for r in rows) == [0, 1]
    assert [r["steps"] for r in rows] == [2 * BATCHES, 2 * BATCHES], "two epochs, one stage"
    assert rows[0]["checksum"] == rows[1]["checksum"], "the ranks' models diverged"


def test_a_killed_python_worker_makes_the_stage_retry_cleanly(spark, data, tmp_path):
    marker = str(tmp_path / "killed")
    rows = (st.read(spark, data, epoch=0, **OPTIONS)
            .mapInArrow(train(kill_rank=1, kill_step=BATCHES + 5, killed_marker=marker),
                        SCHEMA, barrier=True)
            .repartition(1)  # a shuffle after the barrier stage: Spark retries only such stages
            .collect())
    assert [r["steps"] for r in rows] == [2 * BATCHES, 2 * BATCHES]
    assert [r["retried"] for r in rows] == [True, True], "the stage ran again after the kill"
    assert rows[0]["checksum"] == rows[1]["checksum"]


def test_an_early_break_stops_the_rank(spark, data):
    def two_steps(handles):
        loader = st.batches(handles)
        taken = 0
        for _ in loader:
            taken += 1
            if taken == 2:
                break  # no with-block: leaving the loop closes it
        yield pa.RecordBatch.from_pydict({"taken": [taken]})

    rows = st.read(spark, data, **OPTIONS).mapInArrow(two_steps, "taken long", barrier=True)
    assert [r["taken"] for r in rows.collect()] == [2, 2]


def test_an_exception_in_the_training_step_fails_the_task_with_it(spark, data):
    def failing(handles):
        with st.batches(handles) as loader:
            for step, _ in enumerate(loader):
                if step == 3:
                    raise ValueError("model exploded at step 3")
        yield pa.RecordBatch.from_pydict({"x": [1]})

    with pytest.raises(Exception, match="model exploded at step 3"):
        st.read(spark, data, **OPTIONS).mapInArrow(failing, "x long", barrier=True).collect()


def test_more_ranks_than_task_slots_fail_at_once_naming_both_numbers(spark, data):
    # raised by read() on the driver, before any stage: Spark's own check would retry for minutes
    with pytest.raises(Exception, match="worldSize 3: a barrier stage of 3 tasks needs 3 task "
                                        "slots at once, and the cluster has 2"):
        st.read(spark, data, **{**OPTIONS, "worldSize": 3})


def test_a_stage_that_is_not_a_barrier_one_is_refused(spark, data):
    def plain(handles):
        with st.batches(handles) as loader:
            yield pa.RecordBatch.from_pydict({"x": [len(loader)]})

    with pytest.raises(Exception, match="which is not a barrier stage"):
        st.read(spark, data, **OPTIONS).mapInArrow(plain, "x long").collect()


def test_a_failure_in_the_jvm_reaches_python_with_its_reason(spark, data, tmp_path):
    def drain(handles):
        with st.batches(handles) as loader:
            for _ in loader:
                pass
        yield pa.RecordBatch.from_pydict({"x": [1]})

    # maxHostBytes too small for one slot: the rank fails before its first batch
    with pytest.raises(Exception, match="maxHostBytes"):
        (st.read(spark, data, maxHostBytes=64, **OPTIONS)
         .mapInArrow(drain, "x long", barrier=True).collect())


def test_a_handle_outside_its_task_is_refused(spark, data):
    with pytest.raises(StokerError, match="expected one Stoker handle"):
        st.batches(iter([]))


def test_a_transformed_read_is_refused_with_the_remedy(spark, data):
    with pytest.raises(Exception, match="expected a spark.read.format"):
        st.ranks(spark.read.format("stoker").options(batchSize="8").load(data)
                 .selectExpr("id * 2 AS id"))


def test_a_table_read_by_name_takes_no_path(spark, data):
    # no table of that name in the session's catalog: the JVM's read says so, naming it
    with pytest.raises(Exception, match="iceberg table 'no_catalog.db.missing'.*cannot be read"):
        st.read(spark, None, tableFormat="iceberg", table="no_catalog.db.missing", **OPTIONS)
    with pytest.raises(Exception, match="tableFormat=delta with no path and no table"):
        st.read(spark, None, tableFormat="delta", **OPTIONS)


def test_map_in_pandas_and_a_barrier_rdd_hand_their_input_to_batches_too(spark, data):
    import pandas as pd

    def pandas_rank(frames):
        with st.batches(frames) as loader:
            steps = sum(1 for _ in loader)
        yield pd.DataFrame({"rank": [loader.rank], "steps": [steps]})

    def rdd_rank(rows):
        with st.batches(rows) as loader:
            yield loader.rank, sum(int(b["id"].sum()) for b in loader)

    frame = st.read(spark, data, **OPTIONS)
    steps = frame.mapInPandas(pandas_rank, "rank long, steps long", barrier=True).collect()
    assert sorted((r["rank"], r["steps"]) for r in steps) == [(0, BATCHES), (1, BATCHES)]
    sums = dict(st.read(spark, data, **OPTIONS).rdd.barrier().mapPartitions(rdd_rank).collect())
    ids = ids_per_rank(spark, data, 0)
    assert sums == {rank: sum(ids[rank]["ids"]) for rank in (0, 1)}
