"""Print the JVM options for the test suite's Spark JVMs, with a class-data archive when one can be made.

    python scripts/spark_class_archive.py          # build the archive if missing; print the options
    export SPARK_SUBMIT_OPTS="$(python scripts/spark_class_archive.py)"   # as scripts/test.sh does

The suite starts dozens of short-lived Spark JVMs (each worker's session, every kernel a test
or a browser test starts, the Spark Connect servers), and a JVM spends most of its start
loading and verifying Spark's classes. A dynamic class-data-sharing archive (JDK 13+) holds
them as the JVM left them: a session started with it is ready in about half the time (6 s
instead of 11.5 s, median of 3, on 2 cores). The archive is built once per machine, by one
local session doing what tests do (DataFrames, SQL, Python and pandas UDFs, Parquet, a join,
a window, `toPandas`), under .cache/ at the repository's root (about 150 MB, not committed);
its name holds the Java and PySpark versions, so an upgrade builds a new one.

A JVM given an archive made by another JVM or classpath ignores it; one given a damaged
archive crashes, so an archive is written under a temporary name, checked by a JVM that
starts with it, and only then renamed into place. When anything fails, the options are the
ones without an archive. Only the tests use this: the product never sets JVM options.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache"
BASE = "-XX:TieredStopAtLevel=1"  # C1 only: tests/conftest.py says why
QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"  # the archive's warnings are no test's business

# what the building session runs: the classes the tests' sessions load
_WORK = r"""
import sys
from pyspark import SparkContext
from pyspark.sql import SparkSession, Window, functions as F

spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2").getOrCreate())
df = spark.createDataFrame([(i, i % 7, f"s{i}", i * 0.5) for i in range(200)], ["k", "g", "s", "x"])
plus = F.udf(lambda v: None if v is None else v + 1, "long")

@F.pandas_udf("double")
def twice(v):
    return v * 2

out = (df.withColumn("p", plus("k")).withColumn("t", twice("x")).filter(F.col("p") > 3)
       .join(df.select("k", F.col("g").alias("h")), "k")
       .withColumn("r", F.row_number().over(Window.partitionBy("g").orderBy("k"))))
out.groupBy("g").agg(F.max("x"), F.count("*")).collect()
out.write.mode("overwrite").parquet(sys.argv[1])
spark.read.parquet(sys.argv[1]).filter("k > 5").toPandas()
spark.sql("SELECT g, sum(x) FROM parquet.`" + sys.argv[1] + "` GROUP BY g").collect()
out.explain()
proc = SparkContext._gateway.proc
spark.stop()
# the JVM writes the archive when it exits, and it exits when its standard input closes
proc.stdin.close()
proc.wait(timeout=300)
"""


def _java_version() -> str:
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java" if os.environ.get("JAVA_HOME") else "java"
    done = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=60)
    return done.stderr.strip()


def archive_path() -> Path:
    """Where this machine's archive is: named after the Java and PySpark it was made with."""
    import pyspark

    key = hashlib.sha256(f"{_java_version()}\n{pyspark.__version__}\n{pyspark.__file__}".encode()).hexdigest()[:12]
    return CACHE / f"spark-classes-{key}.jsa"


def _usable(path: Path) -> bool:
    """A JVM starts with the archive (a damaged one crashes it; one made for another classpath
    is ignored, which `java -version`, with none, shows to be harmless)."""
    done = subprocess.run(["java", f"-XX:SharedArchiveFile={path}", "-version"],
                          capture_output=True, text=True, timeout=60)
    return done.returncode == 0 and "sharing" in done.stderr


def build(path: Path) -> bool:
    """Make the archive at `path` by running a session with it being recorded; True when made."""
    CACHE.mkdir(exist_ok=True)
    partial = path.with_suffix(f".partial-{os.getpid()}")
    env = {**os.environ, "SPARK_SUBMIT_OPTS": f"{BASE} -XX:ArchiveClassesAtExit={partial} {QUIET}"}
    try:
        subprocess.run([sys.executable, "-c", _WORK, str(CACHE / f"work-{os.getpid()}.parquet")], env=env,
                       capture_output=True, timeout=600, check=True)
        if partial.exists() and _usable(partial):
            partial.replace(path)
            return True
        return False
    except (subprocess.SubprocessError, OSError):
        return False
    finally:
        partial.unlink(missing_ok=True)
        subprocess.run(["rm", "-rf", str(CACHE / f"work-{os.getpid()}.parquet")], check=False)


def options() -> str:
    """SPARK_SUBMIT_OPTS for the tests: with the archive when there is one (built if missing)."""
    try:
        path = archive_path()
        if path.exists() or build(path):
            return f"{BASE} -XX:SharedArchiveFile={path} {QUIET}"
    except Exception:  # noqa: BLE001 - without the archive the tests only start slower
        pass
    return BASE


if __name__ == "__main__":
    print(options())
