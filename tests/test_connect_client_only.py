"""A kernel environment with only the Spark Connect client: a fresh virtualenv (no system site
packages) with `pyspark-client`, this package and the kernel side's dependencies, and no Java
reachable, runs the README's UDF example against a local Connect server (started by
tests/connect_support.py from the test environment) and gets the `%magicpush` suggestion with
rows counted on the server.

The package itself is installed with --no-deps: its dependencies name `pyspark`, the whole
distribution, which a client-only environment replaces with `pyspark-client`. The virtualenv is
built once per test session for a given set of requirements.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.connect_support import connect_server  # noqa: F401 - the fixture

pytestmark = [pytest.mark.slow, pytest.mark.spark]

ROOT = Path(__file__).resolve().parents[1]
CLIENT = "pyspark-client>=4.0"
# what the kernel extension and the Connect client import, as pyproject.toml pins them
KERNEL_SIDE = ("ipykernel", "z3-solver", "pandas", "pyarrow", "grpcio", "grpcio-status",
               "googleapis-common-protos", "zstandard")


def _requirements() -> list[str]:
    try:
        import tomllib

        declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    except ImportError:  # Python 3.10: the installed package's metadata says the same
        from importlib.metadata import requires

        declared = requires("magicpush_lab") or []
    wanted = []
    for name in KERNEL_SIDE:
        [spec] = [d for d in declared if re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0] == name]
        wanted.append(spec)
    return [CLIENT, *wanted]


def _pip(python: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=timeout, check=False)


def _registry_reachable(python: Path) -> bool:
    return _pip(python, "index", "versions", "pyspark-client", timeout=180).returncode == 0


@pytest.fixture(scope="session")
def client_only_python(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The Python of a virtualenv holding pyspark-client and this package, without pyspark or py4j."""
    requirements = _requirements()
    key = hashlib.sha256("\n".join(requirements).encode()).hexdigest()[:12]
    venv = tmp_path_factory.getbasetemp() / f"client-only-{key}"
    python = venv / "bin" / "python"
    if not (venv / "ready").exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=300)
        installed = _pip(python, "install", "--quiet", *requirements)
        if installed.returncode != 0:
            if not _registry_reachable(python):
                pytest.skip(f"the package registry cannot be reached:\n{installed.stderr[-2000:]}")
            pytest.fail(f"installing {requirements} failed:\n{installed.stderr[-4000:]}")
        own = _pip(python, "install", "--quiet", "--no-deps", "-e", str(ROOT))
        if own.returncode != 0:
            pytest.fail(f"installing this package failed:\n{own.stderr[-4000:]}")
        (venv / "ready").write_text("\n".join(requirements))
    yield python


# Run in the virtualenv: the README's example in a traced IPython shell on the server at argv[1].
SCRIPT = textwrap.dedent('''
    import importlib.util
    import json
    import os
    import shutil
    import subprocess
    import sys

    try:
        subprocess.run(["java", "-version"], capture_output=True)
        java_runs = True
    except FileNotFoundError:
        java_runs = False

    from IPython.core.interactiveshell import InteractiveShell
    from pyspark.util import is_remote_only

    from magicpush_lab.kernel.extension import load, magicpush_result

    CELLS = [
        "from pyspark.sql import SparkSession, functions as F\\n"
        "from pyspark.sql.types import IntegerType\\n"
        f"spark = SparkSession.builder.remote({sys.argv[1]!r}).getOrCreate()",
        "orders = spark.createDataFrame([(i % 1000, i) for i in range(2000)], 'amount int, id int')",
        "@F.udf(IntegerType())\\ndef loyalty_points(amount):\\n    if amount is None:\\n        return None\\n"
        "    if amount > 500:\\n        return amount + 50\\n    return amount // 10\\n\\n"
        "scored = orders.withColumn('points', loyalty_points(F.col('amount')))",
        "big_earners = scored.filter(F.col('points') > 1000)",
    ]

    ip = InteractiveShell.instance()
    tracer = load(ip)
    for cell in CELLS:
        ip.run_cell(cell, store_history=True).raise_error()
    shown = magicpush_result(ip, "")["text/plain"]
    print(json.dumps({
        "java_on_path": shutil.which("java"),
        "java_runs": java_runs,
        "java_home": os.environ.get("JAVA_HOME"),
        "remote_only": is_remote_only(),
        "pyspark_core": importlib.util.find_spec("pyspark.core") is not None,
        "py4j": importlib.util.find_spec("py4j") is not None,
        "prefix": sys.prefix,
        "session": type(ip.user_ns["spark"]).__module__,
        "kept": ip.user_ns["big_earners"].count(),
        "warnings": list(tracer.warnings),
        "shown": shown,
    }))
''')


def _points(amount: int) -> int:
    """The README's UDF, to count the big earners here without Spark."""
    return amount + 50 if amount > 500 else amount // 10


def test_a_client_only_kernel_without_java_gets_the_counted_suggestion(
        client_only_python, connect_server, tmp_path):  # noqa: F811 - the fixture
    script = tmp_path / "client_only.py"
    script.write_text(SCRIPT)
    # nothing of the test environment: only the virtualenv's bin on PATH, no JAVA_HOME or SPARK_HOME
    env = {"PATH": str(client_only_python.parent), "HOME": os.environ.get("HOME", str(tmp_path)),
           "PYTHONNOUSERSITE": "1", "LANG": "C.UTF-8"}
    run = subprocess.run([str(client_only_python), str(script), connect_server.url], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-4000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])

    assert out["java_on_path"] is None and out["java_runs"] is False and out["java_home"] is None, out
    assert out["remote_only"] and not out["pyspark_core"] and not out["py4j"], out
    assert Path(out["prefix"]) == client_only_python.parent.parent
    assert out["session"] == "pyspark.sql.connect.session"
    assert not out["warnings"], out["warnings"]

    expected = sum(1 for i in range(2000) if _points(i % 1000) > 1000)
    assert out["kept"] == expected
    shown = out["shown"]
    line = shown[re.search(r"(?m)^1\. ", shown).start():].split("\n\n")[0]  # suggestion 1's block
    assert 'F.col("amount") > 950' in line and "equivalent" in line and "ROW-TO-ROW, 1 row" in line, shown
    assert f"2,000 -> {expected:,}" in line, shown
