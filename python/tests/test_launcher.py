"""stoker.torch.run: a training function started once per rank as torchrun starts it, DDP over
gloo with no arguments to init_process_group, rank 0's result back on the driver."""

import datetime
import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("pyarrow")

import stoker.torch as st  # noqa: E402

ROWS = 640
BATCH = 32
OPTIONS = dict(batchSize=BATCH, worldSize=2, shuffle=True, seed=5, dropLast=True)
NAMES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory):
    from pyspark.sql import functions as F

    path = str(tmp_path_factory.mktemp("parquet") / "train")
    x = F.array(*[(F.col("id") * (i + 3) % 13).cast("float") for i in range(4)])
    spark.range(0, ROWS, 1, 2).select(x.alias("x"), (F.col("id") % 2).alias("label")) \
        .write.parquet(path)
    return path


def ddp_training():
    """The training function (made here: the workers cannot import this test module)."""
    def train(loader, lr):
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel

        env = {name: os.environ[name] for name in NAMES}
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
            return {"env": env, "steps": steps, "same_model": same, "rank": dist.get_rank()}
        finally:
            dist.destroy_process_group()

    return train


def test_a_function_trains_with_ddp_on_every_rank_and_rank_0s_result_comes_back(spark, data):
    before = {name: os.environ.get(name) for name in NAMES}
    result = st.run(st.read(spark, data, **OPTIONS), ddp_training(), 0.05, num_processes=2)

    assert result["rank"] == 0
    assert result["steps"] == ROWS // 2 // BATCH
    assert result["same_model"], "the ranks' models diverged"
    env = result["env"]
    assert (env["RANK"], env["WORLD_SIZE"]) == ("0", "2")
    assert (env["LOCAL_RANK"], env["LOCAL_WORLD_SIZE"]) == ("0", "2"), "both ranks on this host"
    assert env["MASTER_ADDR"] and int(env["MASTER_PORT"]) > 0
    assert {name: os.environ.get(name) for name in NAMES} == before, "the driver's untouched"


def failing():
    def fail(loader):
        raise ValueError("the step failed on purpose")
    return fail


def test_a_failure_in_the_function_fails_the_run_with_it(spark, data):
    with pytest.raises(Exception, match="the step failed on purpose"):
        st.run(st.read(spark, data, **OPTIONS), failing())


def test_gpus_asked_for_where_spark_gives_none_are_named(spark, data):
    with pytest.raises(Exception, match="use_gpu=True, but Spark gave this task no GPU"):
        st.run(st.read(spark, data, **OPTIONS), failing(), use_gpu=True)


def test_torch_distributors_arguments_that_do_not_fit_are_named(spark, data):
    ranks = st.read(spark, data, **OPTIONS)
    with pytest.raises(st.StokerError, match="num_processes=3, but the read has worldSize=2"):
        st.run(ranks, failing(), num_processes=3)
    with pytest.raises(st.StokerError, match="local_mode=True: Stoker's ranks are the barrier"):
        st.run(ranks, failing(), local_mode=True)
