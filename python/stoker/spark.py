"""The runtime jar this package carries, and a session builder that has it in one line.

A wheel built after ``mvn package`` carries ``stoker-spark-runtime-<line>_<scala>-<version>.jar``
for each Spark line built (3.5 by default, 4.0 with ``-Pspark-4``): Stoker's classes and what
they need beyond Spark. :func:`configure_spark` adds the one for the installed PySpark's line to
``spark.jars``, as Delta's ``configure_spark_with_delta_pip`` adds its packages::

    from pyspark.sql import SparkSession
    from stoker.spark import configure_spark
    spark = configure_spark(SparkSession.builder.master("local[2]")).getOrCreate()
"""

import glob
import os
from typing import Any, List, Optional

from stoker._channel import StokerError

__all__ = ["configure_spark", "runtime_jar", "runtime_jars"]

JARS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars")


def runtime_jars() -> List[str]:
    """The runtime jars this package carries, one per Spark line it was built for."""
    return sorted(glob.glob(os.path.join(JARS, "stoker-spark-runtime-*.jar")))


def _line(version: str) -> str:
    parts = version.split(".")
    return ".".join(parts[:2])


def runtime_jar(spark_version: Optional[str] = None) -> str:
    """The path of the runtime jar for ``spark_version`` (default: the installed PySpark's), or a
    StokerError naming the lines this package carries and what to do."""
    if spark_version is None:
        try:
            import pyspark
        except ImportError as e:
            raise StokerError("stoker.spark needs PySpark: pip install \"pyspark==3.5.*\" (or the "
                              "Spark line of your cluster)") from e
        spark_version = pyspark.__version__
    line = _line(spark_version)
    found = [jar for jar in runtime_jars()
             if os.path.basename(jar).startswith(f"stoker-spark-runtime-{line}_")]
    if not found:
        carried = ", ".join(os.path.basename(jar) for jar in runtime_jars()) or "none"
        raise StokerError(
            f"this stoker package carries no runtime jar for Spark {line} (PySpark "
            f"{spark_version}); it carries: {carried} (expected: a wheel built after mvn package "
            f"for that line, -Pspark-4 for Spark 4.0, or spark.jars.packages="
            f"dev.stoker:stoker-spark-runtime-{line}_<scala>:<version>; docs/python.md)")
    return found[-1]


def configure_spark(builder: Any, spark_version: Optional[str] = None) -> Any:
    """``builder`` with this package's runtime jar for the installed PySpark added to
    ``spark.jars`` (after any jars already set there); returns the builder."""
    jar = runtime_jar(spark_version)
    options = getattr(builder, "_options", {})
    given = options.get("spark.jars") if isinstance(options, dict) else None
    jars = f"{given},{jar}" if given else jar
    return builder.config("spark.jars", jars)
