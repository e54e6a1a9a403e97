"""The runtime jar as a Python user gets it: by its Maven coordinate through the session builder
(spark.jars.packages from a file repository), and inside this package's wheel, installed in a
fresh virtual environment, through stoker.spark.configure_spark. Each trains two ranks with DDP
over gloo in a process of its own (two_ranks_job.py)."""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("torch")
pytest.importorskip("pyarrow")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "two_ranks_job.py")
STEPS = 640 // 2 // 32


def built_runtime_jar():
    """The runtime module's jar for the installed PySpark's line, and its coordinate."""
    import pyspark

    line = ".".join(pyspark.__version__.split(".")[:2])
    jars = glob.glob(os.path.join(ROOT, "spark-runtime", "target",
                                  f"stoker-spark-runtime-{line}_*.jar"))
    jars = [j for j in jars if not os.path.basename(j).startswith("original-")]
    if not jars:
        pytest.skip(f"no runtime jar for Spark {line} in spark-runtime/target: mvn package first")
    jar = sorted(jars)[-1]
    name = re.match(r"(stoker-spark-runtime-[0-9.]+_[0-9.]+)-(.+)\.jar$", os.path.basename(jar))
    return jar, name.group(1), name.group(2)


def run_job(python, args, tmp_path, env=None):
    done = subprocess.run([python, JOB, "--dir", str(tmp_path)] + args, capture_output=True,
                          text=True, timeout=600, env=env)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-6000:]
    found = re.search(r"two-ranks job: (\{.*\})", done.stdout)
    assert found, log[-6000:]
    return json.loads(found.group(1)), log


def test_the_coordinate_resolves_from_a_file_repository_through_the_session_builder(tmp_path):
    jar, artifact, version = built_runtime_jar()
    folder = tmp_path / "repo" / "dev" / "stoker" / artifact / version
    folder.mkdir(parents=True)
    shutil.copy(jar, folder / f"{artifact}-{version}.jar")
    shutil.copy(os.path.join(ROOT, "spark-runtime", "target", ".flattened-pom.xml"),
                folder / f"{artifact}-{version}.pom")
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ)
    # a home of its own for the driver's JVM: no Maven cache of this machine answers for the repo
    env["SPARK_SUBMIT_OPTS"] = f"-Duser.home={home}"

    result, log = run_job(sys.executable,
                          ["--packages", f"dev.stoker:{artifact}:{version}",
                           "--repository", (tmp_path / "repo").as_uri()], tmp_path, env)

    assert f"found dev.stoker#{artifact};{version} in repo-1" in log
    assert result["steps"] == STEPS
    assert result["same_model"], "the ranks' models diverged"
    assert f"dev.stoker_{artifact}-{version}.jar" in result["jars"]


def test_the_wheel_carries_the_jar_and_trains_two_ranks_in_a_fresh_environment(tmp_path):
    import numpy
    import pyspark

    jar, artifact, version = built_runtime_jar()
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels),
                    os.path.join(ROOT, "python")], check=True, timeout=300)
    (wheel,) = glob.glob(str(wheels / "stoker-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        assert f"stoker/jars/{artifact}-{version}.jar" in archive.namelist()

    # a fresh environment over the machine's Python, with its PyTorch and NumPy, as a user has
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--system-site-packages", str(venv)], check=True,
                   timeout=300)
    python = str(venv / "bin" / "python")
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(f"numpy=={numpy.__version__}\n")
    subprocess.run([python, "-m", "pip", "install", "-q", "-c", str(constraints), f"{wheel}[spark]",
                    f"pyspark=={pyspark.__version__}", "pyarrow<19"], check=True, timeout=900)

    result, log = run_job(python, ["--wheel"], tmp_path)

    assert result["steps"] == STEPS
    assert result["same_model"], "the ranks' models diverged"
    assert f"stoker/jars/{artifact}-{version}.jar" in result["jars"]
    assert str(venv) in result["jars"], "the jar from the installed wheel"
