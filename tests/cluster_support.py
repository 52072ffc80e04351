"""A Spark standalone cluster for the tests: one master and one worker, each its own JVM.

Both are the stock daemons the pyspark wheel ships, started through its launcher
(`bin/spark-class org.apache.spark.deploy.master.Master`, `...deploy.worker.Worker`) on free
ports, so they never collide with another cluster, a Connect server or a session's UI. The
worker is small (2 cores, 1 GB), as a laptop's share of a real cluster would be.

What runs *on* the cluster is always a driver in a process of its own: a replay kernel of
`magicpush optimize`, a kernel of a Jupyter server, or a Python subprocess. The test process's
classic SparkSession is one per process (tests/conftest.py's `spark`), and a module that pointed
it at the cluster would take it from every other module of the same xdist worker.

A driver finds the cluster through `Cluster.driver_env()`:
- `NOTEBOOK_MASTER`, the master URL a test notebook's builder reads
  (`.master(os.environ.get("NOTEBOOK_MASTER", "local[2]"))`);
- `PYSPARK_PYTHON`, this interpreter: executors run Python UDFs with the Python the driver
  names, and only this one is known to have the UDFs' dependencies (pyarrow, pandas). A session
  built in a Python process reads the variable, not `spark.pyspark.python` (docs/deployment.md);
- `PYSPARK_SUBMIT_ARGS`, settings that size the executors to fit the worker and give them the
  JVM options of the test run (`SPARK_SUBMIT_OPTS`, a class-data archive:
  scripts/spark_class_archive.py) and this repository on their Python path (engine cases pickle
  UDFs defined in the test modules by reference).

No process here gets a SPARK_CONF_DIR of its own: the conf directory is the first entry of a
Spark JVM's class path, and a JVM whose class path differs from the archive's ignores the
archive (it then starts in about twice the time).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.connect_support import free_port

MASTER_VARIABLE = "NOTEBOOK_MASTER"
ROOT = Path(__file__).resolve().parents[1]
WORKER_CORES, WORKER_MEMORY, EXECUTOR_MEMORY = 2, "1g", "768m"


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


@dataclass(frozen=True)
class Cluster:
    """A running master and worker; `url` is what `SparkSession.builder.master` takes."""

    url: str
    ui: str  # the master's web UI; its /json/ lists the workers and applications
    processes: tuple[subprocess.Popen, ...]
    logs: tuple[Path, ...]

    def driver_env(self) -> dict[str, str]:
        """What a driver process needs in its environment to run on this cluster."""
        return {MASTER_VARIABLE: self.url, "PYSPARK_PYTHON": sys.executable,
                "PYSPARK_SUBMIT_ARGS": submit_args(os.environ.get("SPARK_SUBMIT_OPTS", ""))}

    def state(self) -> dict:
        """The master's view of the cluster (its web UI's JSON: workers, applications)."""
        with urllib.request.urlopen(f"{self.ui}/json/", timeout=30) as reply:
            return json.load(reply)

    def log_tail(self, chars: int = 3000) -> str:
        return "\n".join(f"== {log.name}\n{log.read_text(errors='replace')[-chars:]}"
                         for log in self.logs if log.exists())

    def stop(self) -> None:
        for process in reversed(self.processes):  # the worker first: it kills its executors
            _stop(process)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def _daemon_env(home: Path) -> dict[str, str]:
    """The daemons' environment: the launcher adds SPARK_DAEMON_JAVA_OPTS (not SPARK_SUBMIT_OPTS,
    which only spark-submit reads) to their command lines."""
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_DAEMON_MEMORY": "256m", "PYSPARK_PYTHON": sys.executable}
    env["SPARK_DAEMON_JAVA_OPTS"] = " ".join(o for o in (env.get("SPARK_DAEMON_JAVA_OPTS", ""),
                                                         os.environ.get("SPARK_SUBMIT_OPTS", "")) if o)
    # executors inherit the worker's environment: their Python workers import the tests' modules
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    for name in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "SPARK_API_MODE", "PYSPARK_SUBMIT_ARGS",
                 "SPARK_CONF_DIR", "SPARK_MASTER_HOST", "SPARK_MASTER_PORT", "SPARK_WORKER_CORES",
                 "SPARK_WORKER_MEMORY"):
        env.pop(name, None)
    return env


def submit_args(executor_java_options: str) -> str:
    """PYSPARK_SUBMIT_ARGS for the drivers: executors that fit the worker, with the test run's JVM
    options and this repository on their Python path.

    >>> args = submit_args("-XX:TieredStopAtLevel=1 -Xlog:cds=off")
    >>> args.split(" --conf ")[:2]
    ['--conf spark.executor.memory=768m', 'spark.executor.cores=2']
    >>> "'spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1 -Xlog:cds=off'" in args
    True
    >>> submit_args("").endswith(" pyspark-shell")
    True
    """
    settings = [("spark.executor.memory", EXECUTOR_MEMORY), ("spark.executor.cores", str(WORKER_CORES)),
                ("spark.executor.extraJavaOptions", executor_java_options),
                ("spark.executorEnv.PYTHONPATH", str(ROOT))]
    conf = [part for k, v in settings if v for part in ("--conf", f"{k}={v}")]
    return shlex.join([*conf, "pyspark-shell"])


def _alive_workers(ui: str) -> int:
    try:
        with urllib.request.urlopen(f"{ui}/json/", timeout=5) as reply:
            state = json.load(reply)
    except (urllib.error.URLError, OSError, ValueError):  # the UI is not up yet
        return 0
    return sum(1 for w in state.get("workers", ()) if w.get("state") == "ALIVE")


def _launch(home: Path, env: Mapping[str, str], log: Path, *args: str) -> subprocess.Popen:
    with open(log, "wb") as handle:  # the daemon writes to its own copy of the descriptor
        return subprocess.Popen([str(home / "bin" / "spark-class"), *args], stdout=handle,
                                stderr=subprocess.STDOUT, env=dict(env))


def start_cluster(timeout: float = 180.0) -> Cluster:
    """Start a master and one worker on free ports and wait until the worker has registered."""
    home = _spark_home()
    logs_dir = Path(tempfile.mkdtemp(prefix="magicpush-cluster-"))
    env = _daemon_env(home)
    port, ui_port, worker_ui_port = free_port(), free_port(), free_port()
    url, ui = f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{ui_port}"
    logs = (logs_dir / "master.log", logs_dir / "worker.log")
    master = _launch(home, env, logs[0], "org.apache.spark.deploy.master.Master",
                     "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui_port))
    worker = _launch(home, env, logs[1], "org.apache.spark.deploy.worker.Worker", url,
                     "--host", "127.0.0.1", "--webui-port", str(worker_ui_port), "--cores", str(WORKER_CORES),
                     "--memory", WORKER_MEMORY, "--work-dir", str(logs_dir / "work"))
    cluster = Cluster(url, ui, (master, worker), logs)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in cluster.processes):
            cluster.stop()
            raise RuntimeError(f"a cluster daemon exited:\n{cluster.log_tail()}")
        if _alive_workers(ui) >= 1:
            return cluster
        time.sleep(0.5)
    cluster.stop()
    raise RuntimeError(f"no worker registered within {timeout:g} s:\n{cluster.log_tail()}")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """One cluster per test module, stopped at the module's end."""
    started = start_cluster()
    try:
        yield started
    finally:
        started.stop()
