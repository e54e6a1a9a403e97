"""The errors a Python user meets first, each one line that says what to do: a session without
the Stoker jars (in a child process: a Spark session of its own, without them), and what a class
of Spark or Scala missing from the JVM is read as (jars of another Spark line)."""

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")
pytest.importorskip("pyspark")

from conftest import ROOT  # noqa: E402

WITHOUT_JARS = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession
    sys.path.insert(0, sys.argv[1])
    import stoker.torch
    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .getOrCreate())
    try:
        stoker.torch.read(spark, sys.argv[2], batchSize=4)
    except stoker.torch.StokerError as e:
        print("STOKER-ERROR", e)
    finally:
        spark.stop()
""")


def test_a_session_without_the_jars_is_told_how_to_add_them(tmp_path):
    import os

    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    env.pop("SPARK_HOME", None)
    run = subprocess.run([sys.executable, "-c", WITHOUT_JARS, os.path.join(ROOT, "python"),
                          str(tmp_path / "data")], capture_output=True, text=True, timeout=300,
                         env=env)
    lines = [line for line in run.stdout.splitlines() if line.startswith("STOKER-ERROR")]
    assert lines, run.stdout[-2000:] + run.stderr[-3000:]
    assert "the Stoker jars are not on this Spark session" in lines[0]
    assert "stoker.spark.configure_spark(SparkSession.builder)" in lines[0]
    assert 'config("spark.jars.packages", "dev.stoker:stoker-spark-runtime-' in lines[0]
    assert "built for this session's Spark " in lines[0]


def test_jars_of_another_spark_line_are_named_as_such(spark):
    from stoker.torch import _other_line

    error = _other_line(spark, RuntimeError(
        "py4j.protocol.Py4JJavaError: java.lang.NoSuchMethodError: "
        "'scala.collection.immutable.ArraySeq scala.runtime.ScalaRunTime$.wrapRefArray'"))
    scala = spark._jvm.scala.util.Properties.versionNumberString()
    assert error is not None
    assert str(error).startswith(
        "the Stoker jars on this session were built for another Spark line or Scala version "
        f"than this session's (Spark {spark.version}, Scala {scala})")
    assert _other_line(spark, RuntimeError("AnalysisException: Path does not exist")) is None


def test_a_package_without_the_runtime_jar_of_the_sessions_line_names_the_ones_it_carries():
    from stoker.spark import runtime_jar, runtime_jars
    from stoker.torch import StokerError

    with pytest.raises(StokerError) as raised:
        runtime_jar("9.1.0")
    message = str(raised.value)
    assert message.startswith("this stoker package carries no runtime jar for Spark 9.1 "
                              "(PySpark 9.1.0); it carries: ")
    assert "spark.jars.packages=dev.stoker:stoker-spark-runtime-9.1_<scala>:<version>" in message
    for jar in runtime_jars():
        assert runtime_jar(jar.rsplit("stoker-spark-runtime-", 1)[1].split("_")[0]) == jar


def test_configure_spark_adds_the_jar_after_the_jars_already_set():
    from stoker.spark import configure_spark, runtime_jars

    if not runtime_jars():
        pytest.skip("this package carries no runtime jar: mvn package first")
    jar = runtime_jars()[0]
    line = jar.rsplit("stoker-spark-runtime-", 1)[1].split("_")[0]

    class Builder:
        def __init__(self):
            self._options = {"spark.jars": "/opt/other.jar"}

        def config(self, key, value):
            self._options[key] = value
            return self

    builder = configure_spark(Builder(), line + ".0")
    assert builder._options["spark.jars"] == "/opt/other.jar," + jar
