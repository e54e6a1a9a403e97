"""One local Spark session for the tests, with the Stoker jars built by Maven in this checkout.

Set STOKER_JARS (comma-separated) to test other jars. The tests need PySpark, PyArrow and
PyTorch; without PySpark they are skipped.
"""

import glob
import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def stoker_jars():
    given = os.environ.get("STOKER_JARS")
    if given:
        return given
    jars = []
    # the libraries, and the tools for the Python benchmark's JVM yardstick (JvmRead)
    for module in ("loader-core", "spark-connector", "tools"):
        found = [j for j in glob.glob(os.path.join(ROOT, module, "target", "stoker-*.jar"))
                 if not j.endswith(("-sources.jar", "-tests.jar", "-javadoc.jar"))]
        if not found:
            pytest.skip(f"no jar in {module}/target: build with mvn package first")
        jars.append(sorted(found)[0])
    # what loader-core needs beyond Spark (the tokenizer), copied there by mvn package
    jars.extend(sorted(glob.glob(os.path.join(ROOT, "loader-core", "target", "lib", "*.jar"))))
    return ",".join(jars)


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    pyspark = pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (SparkSession.builder
               # 2 task slots for 2 ranks; a failed task may run 4 times (the stage retry test)
               .master("local[2,4]")
               .appName("stoker-python-tests")
               .config("spark.jars", stoker_jars())
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.python.worker.reuse", "true")
               .config("spark.driver.memory", "1g")
               .config("spark.local.dir", str(tmp_path_factory.mktemp("spark-local")))
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
