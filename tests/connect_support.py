"""A local Spark Connect server for the tests, and Connect sessions on it.

The server is the stock one the pyspark wheel ships (`spark-submit --class
org.apache.spark.sql.connect.service.SparkConnectServer`), started in its own process on a free
port (`spark.connect.grpc.binding.port`), so it never collides with another server on 15002 or
with the test process's own classic SparkSession. One server serves the whole test session.

`pyspark.sql.functions` builds Connect Columns only while `SPARK_CONNECT_MODE_ENABLED` is set;
`connect_mode()` sets it for one test and puts it back, so classic tests in the same process
keep building classic Columns.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

STARTED = "Spark Connect server started"

#: the environment variable a Connect server reads its required token from, and the PySpark client
#: the token it sends when its URL has none
TOKEN_VARIABLE = "SPARK_CONNECT_AUTHENTICATE_TOKEN"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


class ConnectServer:
    """A Connect server process on `port`; `url` is what `SparkSession.builder.remote` takes (with
    the server's `token` as the URL's parameter when it requires one)."""

    def __init__(self, port: int, process: subprocess.Popen, log: Path, token: str | None = None) -> None:
        self.port, self.process, self.log, self.token = port, process, log, token

    @property
    def url(self) -> str:
        return f"sc://localhost:{self.port}" + (f"/;token={self.token}" if self.token else "")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def start_server(timeout: float = 180.0, token: str | None = None) -> ConnectServer:
    """Start a local Connect server on a free port and wait until it listens. With a `token`, the
    server refuses every request that does not carry it as its bearer token (Spark's
    SPARK_CONNECT_AUTHENTICATE_TOKEN, handed over in the environment so that it is not on the
    process's command line); the server has no TLS either way."""
    home = _spark_home()
    port = free_port()
    log = Path(tempfile.mkdtemp(prefix="magicpush-connect-")) / "server.log"
    env = {**os.environ, "SPARK_HOME": str(home)}
    # the server's Python workers unpickle the tests' UDFs, which live in this repository's modules
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    for name in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "SPARK_API_MODE", "PYSPARK_SUBMIT_ARGS",
                 TOKEN_VARIABLE):
        env.pop(name, None)
    if token is not None:
        env[TOKEN_VARIABLE] = token
    command = [str(home / "bin" / "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
               "--master", "local[2]", "--driver-memory", "768m",
               "--conf", f"spark.connect.grpc.binding.port={port}", "--conf", "spark.ui.enabled=false",
               "--conf", "spark.sql.shuffle.partitions=2",
               "--conf", f"spark.pyspark.python={sys.executable}",
               "--conf", f"spark.pyspark.driver.python={sys.executable}"]
    handle = open(log, "wb")
    process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, env=env)
    server = ConnectServer(port, process, log, token)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the Connect server exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        if STARTED in log.read_text(errors="replace"):
            return server
        time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"the Connect server did not start within {timeout} s:\n{log.read_text()[-3000:]}")


@contextmanager
def connect_mode() -> Iterator[None]:
    """`pyspark.sql.functions` builds Connect Columns inside, classic ones again after."""
    before = os.environ.get("SPARK_CONNECT_MODE_ENABLED")
    os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
        else:
            os.environ["SPARK_CONNECT_MODE_ENABLED"] = before


def connect_session(url: str):
    """A new Connect session on `url` (getOrCreate would hand back a session on another server),
    made without switching the process to Connect mode."""
    from pyspark.sql.connect.session import SparkSession

    return SparkSession.builder.remote(url).create()


@pytest.fixture(scope="session")
def connect_server() -> Iterator[ConnectServer]:
    server = start_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def connect_spark(connect_server: ConnectServer):
    session = connect_session(connect_server.url)
    yield session
    try:
        session.stop()
    except Exception:  # the server may already be going
        pass


@pytest.fixture(params=["classic", "connect"])
def traced_session(request):
    """(traced shell, its session), once on a classic session and once on Spark Connect: the
    notebook's cells run in the shell as in a kernel with the extension loaded."""
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.kernel.extension import load, unload

    if request.param == "classic":
        yield request.getfixturevalue("shell"), request.getfixturevalue("spark")
        return
    spark = request.getfixturevalue("connect_spark")
    ip = InteractiveShell.instance()
    tracer = load(ip)
    ip.user_ns["spark"] = spark
    with connect_mode():
        yield (ip, tracer), spark
    unload(ip)
