"""A Python run on the Stoker page: each rank's row, live while the ranks hold (read in Chromium
where it is installed, over HTTP otherwise) and once they finished, with the batches, Python's own
wait and the verdict (stoker_page_job.py, in a process of its own: a session with the UI on)."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

from conftest import stoker_jars  # noqa: E402

JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stoker_page_job.py")
PER_RANK = 1024 // 2 // 32


def test_a_python_run_shows_each_rank_live_and_finished_on_the_stoker_page(tmp_path):
    done = subprocess.run([sys.executable, JOB, "--dir", str(tmp_path), "--jars", stoker_jars()],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-6000:]
    found = re.search(r"stoker-page job: (\{.*\})", done.stdout)
    assert found, log[-6000:]
    result = json.loads(found.group(1))

    assert result["steps"] == PER_RANK
    for rank in ("0", "1"):
        live = result["live"][rank]
        assert "|3 (16 per epoch)|" in live, live
        assert "|shared memory (Python)|" in live, live
        final = result["final"][rank]
        assert f"|{PER_RANK} ({PER_RANK} per epoch)|" in final, final
        cells = [cell for cell in final.split("|") if cell]
        # Python's wait, as it counted it, beside its step: "0.01 s (2% of step)"
        assert re.fullmatch(r"[0-9.]+ s \([0-9]+% of step\)", cells[6]), final
        # Python's own step time per batch: each rank held a few seconds while the page was read
        assert float(cells[10]) >= 20, final
        # samples/s over Python's time, the hold included: 512 rows in more than a second
        assert float(cells[5].replace(",", "")) < 512, final
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", cells[15]), final  # the verdict
    if shutil.which("chromium") or shutil.which("chromium-browser"):
        assert result["chart"], "the page's chart in the browser"
        for rank in ("0", "1"):
            assert "|3 (16 per epoch)|" in result["browser"][rank], result["browser"]
