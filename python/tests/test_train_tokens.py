"""examples/python/train_tokens.py run briefly, as a user runs it (its own local Spark on 2 ranks,
with the jars this checkout built): packed rows of the contract's shapes reach both ranks, and the
causal transformer's loss falls. Skipped without PyTorch, PyArrow, PySpark, the jars (conftest) or
Debian's fortunes."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("pyarrow")
pytest.importorskip("pyspark")

from conftest import ROOT, stoker_jars  # noqa: E402

EXAMPLE = os.path.join(ROOT, "examples", "python", "train_tokens.py")
FORTUNES = "/usr/share/games/fortunes"
BATCH, LENGTH, STEPS = 8, 64, 16


def test_the_tokens_example_packs_fortunes_and_its_loss_falls(tmp_path):
    if not os.path.isfile(os.path.join(FORTUNES, "fortunes")):
        pytest.skip("no fortunes under /usr/share/games/fortunes: apt-get install fortunes")
    figures = tmp_path / "figures.json"
    command = [sys.executable, EXAMPLE, "--data", str(tmp_path / "data"), "--fortunes", "1500",
               "--batch-size", str(BATCH), "--length", str(LENGTH), "--steps", str(STEPS),
               "--json", str(figures)]
    try:
        import matplotlib  # noqa: F401
        command += ["--plot", str(tmp_path / "loss.png")]
    except ImportError:
        pass
    env = dict(os.environ, STOKER_JARS=stoker_jars(), PYSPARK_PYTHON=sys.executable,
               PYTHONPATH=os.pathsep.join(
                   [os.path.join(ROOT, "python")] + os.environ.get("PYTHONPATH", "").split(
                       os.pathsep)).rstrip(os.pathsep))
    env.pop("SPARK_HOME", None)
    run = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env,
                         cwd=str(tmp_path))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    result = json.loads(figures.read_text())

    int32 = "torch.int32"
    assert result["shapes"] == {name: [int32, [BATCH, LENGTH]] for name in
                                ("input_ids", "position_ids", "document_ids", "labels")}
    assert result["rows_consistent"], "labels, positions or document ids break the contract"
    assert result["steps"] == STEPS and sorted(result["losses"]) == ["0", "1"]
    assert result["tokens_trained"] == 2 * STEPS * BATCH * LENGTH
    assert result["padding_tokens"] == 0, "packed rows hold no padding"
    # every rank the same full batches; the tail past the last full step less than one step
    assert result["tokens_per_epoch"] == 2 * result["batches_per_rank"] * BATCH * LENGTH
    assert 0 <= result["tail_dropped"] < 2 * BATCH * LENGTH
    assert f"{result['stream_tokens']} tokens, {result['tail_dropped']} dropped" in \
        result["read"]
    losses = result["losses"]["0"]
    assert losses == result["losses"]["1"], "the ranks report the same mean loss"
    assert losses[0] > 10.0  # about ln(50257) = 10.8 at first
    assert sum(losses[-4:]) / 4 < sum(losses[:4]) / 4 - 0.5, losses
    if "--plot" in command:
        assert (tmp_path / "loss.png").stat().st_size > 10_000
