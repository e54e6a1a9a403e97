"""The Python benchmark's ways (``python -m stoker.bench``) on a small table: each delivers every
full batch of every epoch, several epochs in one stage where it says so."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("pyarrow")

from stoker import bench  # noqa: E402

ROWS = 3000
BATCH = 64
# 3000 rows over 2 ranks: 1500 each, 23 full batches of 64 per rank and epoch
PER_EPOCH = 2 * 23 * BATCH


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("bench") / "data")
    bench._write(spark, path, ROWS)
    yield path
    spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")  # the baseline sets it


@pytest.mark.parametrize("name", ["stoker", "jvm_stage", "jvm_read", "baseline"])
def test_every_way_delivers_every_full_batch_of_every_epoch(spark, table, name):
    way = {"stoker": bench._stoker, "jvm_stage": bench._jvm_stage,
           "jvm_read": bench._job_per_epoch(bench._jvm_read),
           "baseline": bench._job_per_epoch(bench._baseline)}[name]
    rows, seconds = way(spark, table, BATCH, 2, 3, 2)
    assert rows == 2 * PER_EPOCH
    assert seconds > 0


def test_the_jvm_stage_refuses_no_epochs(spark, table):
    frame = spark.read.format("stoker").options(**bench._options(BATCH, 2, 0)).load(table)
    with pytest.raises(Exception, match="epochs: 0 .expected: at least 1."):
        spark._jvm.dev.stoker.tools.spark.python.JvmRead.consumeInStage(frame._jdf, 0)


def test_an_empty_stage_runs_one_task_per_rank(spark):
    seconds = bench._empty_stage(spark, 2)
    assert 0 < seconds < 60


@pytest.mark.parametrize("args, message", [
    (["--warmups", "-1"], "--warmups: -1 (expected: at least 0)"),
    (["--repeats", "0"], "--repeats: 0 (expected: at least 1)"),
    (["--epochs", "0"], "--epochs: 0 (expected: at least 1)"),
])
def test_bad_counts_are_refused_before_spark_starts(capsys, args, message):
    with pytest.raises(SystemExit) as exit:
        bench.main(["--jars", "none.jar"] + args)
    assert exit.value.code == 2
    assert message in capsys.readouterr().err
