"""A rank loader's state from Python: after any batch the JVM's own ``LoaderState``; saved with
``torch.save`` by a training run that is then killed, and resumed by a new read on the same or
another number of ranks, every row of the epoch delivered exactly once."""

import json
import os

import pytest

torch = pytest.importorskip("torch")
pa = pytest.importorskip("pyarrow")

import stoker.torch as st  # noqa: E402
from stoker import StokerError  # noqa: E402
from stoker import _state  # noqa: E402

ROWS = 1000
BATCH = 32
OPTIONS = dict(batchSize=BATCH, shuffle=True, seed=11, dropLast=True, numWorkers=1)


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory):
    from pyspark.sql import functions as F

    path = str(tmp_path_factory.mktemp("parquet") / "train")
    spark.range(0, ROWS, 1, 3).select(F.col("id"), (F.col("id") % 2).alias("label")) \
        .write.parquet(path)
    return path


def jvm_scan(spark, data, **options):
    frame = spark.read.format("stoker").options(
        **{k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()}
    ).load(data).select("id")
    return spark._jvm.dev.stoker.spark.source.ScanPlans.stokerScan(
        frame._jdf.queryExecution().executedPlan())


def test_the_state_after_any_batch_is_the_jvms(spark, data):
    def states(handles):
        with st.batches(handles) as loader:
            seen = [loader.state_dict()["stoker_state"]]
            for _ in loader:
                seen.append(loader.state_dict()["stoker_state"])
            after = loader.state_dict()
        yield pa.RecordBatch.from_pydict({"rank": [loader.rank], "states": [seen],
                                          "after": [json.dumps(after)]})

    rows = (st.read(spark, data, worldSize=2, epoch=3, **OPTIONS)
            .mapInArrow(states, "rank long, states array<string>, after string", barrier=True)
            .collect())
    scan = jvm_scan(spark, data, worldSize=2, epoch=3, **OPTIONS)
    batches = scan.batchesPerRank()
    resume = spark._jvm.dev.stoker.spark.parquet.ParquetResume
    expected = [scan.stateAfter(k).toString() for k in range(batches)]
    # after the last batch: the next epoch over the same rows (the order's epoch kept)
    expected.append(resume.after(scan.stateAfter(0), batches, batches, False).toString())
    for row in rows:
        assert row["states"] == expected, f"rank {row['rank']}"
        after = json.loads(row["after"])
        assert after["epoch"] == 3 and after["batches"] == 0
    state = spark._jvm.dev.stoker.loader.state.LoaderState.parse(expected[4])
    assert state.describe() == f"epoch 3, {4 * BATCH * 2} row(s) consumed (4 batch(es) x {BATCH} x 2 rank(s))"


def test_a_bad_state_is_named(spark, data):
    with pytest.raises(_state.BadState, match="expected: a string starting with 'stoker1:'"):
        _state.decode("not a state")
    good = jvm_scan(spark, data, worldSize=2, **OPTIONS).stateAfter(1).toString()
    broken = good[:12] + ("A" if good[12] != "A" else "B") + good[13:]
    with pytest.raises(_state.BadState, match="corrupted"):
        _state.decode(broken)
    with pytest.raises(StokerError, match="stoker_state"):
        st.read(spark, data, worldSize=2, resumeFrom={"state": good}, **OPTIONS)


def checkpointing_run(tmp, steps, kill):
    """A rank's training function: ``steps`` batches, a checkpoint by rank 0, then killed."""
    def train(handles):
        with st.batches(handles) as loader:
            ids = []
            for step, batch in enumerate(loader):
                ids.extend(batch["id"].tolist())
                if step + 1 == steps:
                    if loader.rank == 0:
                        torch.save({"model": {}, "loader": loader.state_dict()},
                                   os.path.join(tmp, "checkpoint.pt"))
                    with open(os.path.join(tmp, f"ids-{loader.rank}.json"), "w") as out:
                        json.dump(ids, out)
                    if kill:
                        raise RuntimeError("killed after the checkpoint")
            yield pa.RecordBatch.from_pydict({"rank": [loader.rank], "ids": [ids]})
    return train


def resumed_ids(spark, data, state, world_size):
    def rest(handles):
        with st.batches(handles) as loader:
            loader.load_state_dict(state)  # as a training framework restoring it would
            ids = [i for batch in loader for i in batch["id"].tolist()]
        yield pa.RecordBatch.from_pydict({"rank": [loader.rank], "ids": [ids]})

    rows = (st.read(spark, data, worldSize=world_size, resumeFrom=state, **OPTIONS)
            .mapInArrow(rest, "rank long, ids array<long>", barrier=True)
            .repartition(1).collect())
    return {r["rank"]: r["ids"] for r in rows}


@pytest.mark.parametrize("world_size", [2, 1, 3])
def test_a_killed_run_resumes_from_its_checkpoint_exactly_once(spark, data, tmp_path, world_size):
    if world_size > spark.sparkContext.defaultParallelism:
        pytest.skip("more ranks than this session's task slots")
    whole = (st.read(spark, data, worldSize=2, **OPTIONS)
             .mapInArrow(checkpointing_run(str(tmp_path / "whole"), -1, False),
                         "rank long, ids array<long>", barrier=True).collect())
    epoch = {r["rank"]: r["ids"] for r in whole}
    os.makedirs(tmp_path / "run")
    with pytest.raises(Exception, match="killed after the checkpoint"):
        (st.read(spark, data, worldSize=2, **OPTIONS)
         .mapInArrow(checkpointing_run(str(tmp_path / "run"), 5, True),
                     "rank long, ids array<long>", barrier=True).collect())
    before = {r: json.load(open(tmp_path / "run" / f"ids-{r}.json")) for r in (0, 1)}
    state = torch.load(tmp_path / "run" / "checkpoint.pt")["loader"]
    assert state["batches"] == 5 and state["epoch"] == 0

    rest = resumed_ids(spark, data, state, world_size)
    delivered = before[0] + before[1] + [i for ids in rest.values() for i in ids]
    assert len(delivered) == len(set(delivered)), "a row delivered twice"
    if world_size == 2:
        for rank in (0, 1):
            assert before[rank] + rest[rank] == epoch[rank], "the epoch as if never stopped"
    else:
        assert set(delivered) <= set(epoch[0] + epoch[1]) | set(range(ROWS))
        lengths = {len(ids) for ids in rest.values()}
        assert len(lengths) == 1, "equal batches on every rank"


def test_a_state_the_read_did_not_resume_from_is_refused(spark, data):
    def load(handles):
        with st.batches(handles) as loader:
            state = loader.state_dict()
            loader.load_state_dict(state)  # its own start: accepted
            next(iter(loader))
            try:
                loader.load_state_dict(loader.state_dict())
                message = ""
            except StokerError as e:
                message = str(e)
        yield pa.RecordBatch.from_pydict({"message": [message]})

    rows = (st.read(spark, data, worldSize=2, **OPTIONS)
            .mapInArrow(load, "message string", barrier=True).collect())
    for row in rows:
        assert "did not resume from that state" in row["message"]
        assert "resumeFrom=state_dict" in row["message"]
