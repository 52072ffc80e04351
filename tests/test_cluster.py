"""The tool on a Spark standalone cluster (a master and a worker, each its own JVM:
tests/cluster_support.py): what it finds, counts and rewrites there is what it does locally.

- The example notebook, its builder pointed at the cluster: `magicpush optimize` gives the
  suggestion a local session gives, with the rows counted by the cluster's executors, and the
  rewritten notebook gives the original's rows (bags compared).
- Parquet partitioned by `region` (tests/notebooks/partitioned_orders.py): a filter on a UDF of
  the partition column reaches the scan as a partition filter; the neighbour through a
  nondeterministic UDF is refused.
- Cancel (tests/test_cancel.py says what it means): a measurement over 10**12 rows, cancelled,
  stops the cluster's job, and the session runs the next job.
- A few engine cases (a UDF, a join, and a join that must not push) on a session of the cluster.

Every driver runs in a process of its own (replay kernels, a Jupyter server's kernel, a Python
subprocess): the test process's local session is shared with the other modules of its worker.
EXAMPLE_ROWS keeps the example's data small; the kernels inherit it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupyter_core.utils import ensure_event_loop
from nbclient import NotebookClient

from magicpush_lab.cli import main
from magicpush_lab.driver.notebook import read_document
from tests.cluster_support import MASTER_VARIABLE, Cluster, cluster  # noqa: F401 - the fixture
from tests.connect_support import free_port
from tests.test_cancel import (_cancelled_once_running, _client, _idle_within, _spark_jobs, _start,  # noqa: F401
                               jp_server_config)
from tests.test_server import run_in_kernel

pytestmark = [pytest.mark.spark, pytest.mark.kernel]
pytest_plugins = ("pytest_jupyter.jupyter_server",)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "udf_filter.ipynb"
PARTITIONED = ROOT / "tests" / "notebooks" / "partitioned_orders.py"
ROWS = 20000
LOCAL_MASTER = '.master("local[2]")'
CLUSTER_MASTER = f'.master(os.environ["{MASTER_VARIABLE}"])'


def _amount(order_id: int) -> int:
    """The amount both notebooks give an order (`id * 7919 % 1000`)."""
    return order_id * 7919 % 1000


# the rows each notebook's late filter keeps, worked out here from how the notebook makes its data
EXAMPLE_KEPT = sum(1 for i in range(ROWS) if _amount(i) > 950)
PARTITIONED_KEPT = sum(1 for i in range(4000) if i % 8 >= 6 and _amount(i) > 950)


def _on_the_cluster(example: Path) -> Path:
    """The example with its builder's master read from the environment (the only change)."""
    nb = nbformat.read(EXAMPLE, as_version=4)
    [builder] = [c for c in nb.cells if LOCAL_MASTER in c.source]
    builder.source = builder.source.replace(LOCAL_MASTER, CLUSTER_MASTER)
    nbformat.write(nb, example)
    return example


def _rows_cell(variable: str, tag: str) -> str:
    """A cell that saves `variable`'s rows and the session's master to rows-<tag>.json."""
    return (f"import json as _json\nwith open('rows-{tag}.json', 'w') as _out:\n"
            f"    _json.dump({{'master': spark.sparkContext.master, "
            f"'rows': [list(r) for r in {variable}.collect()]}}, _out)")


def _run_together(folder: Path, runs: list[tuple[Path, str, str]]) -> dict[str, dict[str, Any]]:
    """Run each (notebook, variable, tag) in turn in one fresh kernel in `folder` (one driver on
    the cluster, not one per notebook), each followed by the cell that saves its rows."""
    cells = []
    for path, variable, tag in runs:
        # new cells, each with an id of its own: the notebooks share theirs
        cells += [nbformat.v4.new_code_cell(c.source) for c in read_document(path).nb.cells if c.cell_type == "code"]
        cells.append(nbformat.v4.new_code_cell(_rows_cell(variable, tag)))
    NotebookClient(nbformat.v4.new_notebook(cells=cells), timeout=300,
                   resources={"metadata": {"path": str(folder)}}).execute()
    return {tag: json.loads((folder / f"rows-{tag}.json").read_text()) for _, _, tag in runs}


@pytest.fixture(scope="module")
def on_cluster(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:  # noqa: F811
    """Both notebooks optimized on the cluster by one CLI run (--apply), then the originals and
    the rewritten ones run on it in one kernel: {"results": {name: CLI JSON}, "rows": {tag: ...}}."""
    folder = tmp_path_factory.mktemp("cluster")
    example = _on_the_cluster(folder / EXAMPLE.name)
    partitioned = Path(shutil.copy(PARTITIONED, folder / PARTITIONED.name))
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as env:
        for name, value in {**cluster.driver_env(), "EXAMPLE_ROWS": str(ROWS)}.items():
            env.setenv(name, value)  # the replay kernels inherit it
        env.chdir(folder)
        code = main(["optimize", example.name, partitioned.name, "--json", "--all-pipelines",
                     "--apply", "-o", "rewritten"], stdout=out)
        results = {r["notebook"]: r for r in map(json.loads, out.getvalue().splitlines())}
        assert code == 0, results
        rows = _run_together(folder, [(example, "big_earners", "example"),
                                      (folder / "rewritten" / example.name, "big_earners", "example-rewritten"),
                                      (partitioned, "east_big", "partitioned"),
                                      (folder / "rewritten" / partitioned.name, "east_big", "partitioned-rewritten")])
    return {"results": results, "rows": rows, "folder": folder}


def _bag(saved: dict[str, Any]) -> Counter:
    return Counter(tuple(r) for r in saved["rows"])


def test_the_example_on_the_cluster_gives_the_local_suggestion_counted_there(on_cluster):
    [s] = on_cluster["results"][EXAMPLE.name]["suggestions"]
    # what a local session gives for this UDF (tests/test_connect_cli.py pins the same predicate)
    assert (s["source"], s["predicate"], s["kind"]) == ("orders", 'F.col("amount") > 950', "equivalent")
    assert [(p["category"], p["base_case_rows"]) for p in s["proof"]] == [("ROW-TO-ROW", 1)]
    # counted by the cluster's executors, exactly
    assert (s["rows_before"], s["rows_after"]) == (ROWS, EXAMPLE_KEPT)
    assert not s["estimated"]


def test_the_rewritten_example_gives_the_original_rows_on_the_cluster(on_cluster, cluster):  # noqa: F811
    rows = on_cluster["rows"]
    original, rewritten = rows["example"], rows["example-rewritten"]
    assert original["master"] == rewritten["master"] == cluster.url
    assert ".filter(" in read_document(on_cluster["folder"] / "rewritten" / EXAMPLE.name).nb.cells[3].source
    assert _bag(rewritten) == _bag(original)
    assert sum(_bag(original).values()) == EXAMPLE_KEPT
    # every driver of the module so far ran as an application of this master
    assert len(cluster.state()["completedapps"]) + len(cluster.state()["activeapps"]) >= 3


def test_a_filter_on_a_partition_column_reaches_the_scan_as_a_partition_filter(on_cluster):
    result = on_cluster["results"][PARTITIONED.name]
    [s] = result["suggestions"]
    assert (s["source"], s["pipeline"], s["kind"]) == ("orders", "east_big", "equivalent")
    assert (s["rows_before"], s["rows_after"]) == (4000, PARTITIONED_KEPT)
    scan = s["scan_filters"]
    assert scan["scan"] == "Parquet" and scan["all_pushed"], scan
    # the zone's conjunct, on the partition column, lists only the east's directories
    [partition] = scan["partition_filters"]
    assert "region >= 6" in partition, scan
    # the amount's conjunct is a data filter: pushed to the Parquet reader, not a partition filter
    assert "GreaterThan(amount,950)" in scan["pushed"] and "amount" not in partition, scan
    # the neighbour through a nondeterministic UDF stays where it is
    assert [r["pipeline"] for r in result["refusals"]] == ["shaken"], result["refusals"]
    assert "nondeterministic" in result["refusals"][0]["reason"]
    rows = on_cluster["rows"]
    assert _bag(rows["partitioned-rewritten"]) == _bag(rows["partitioned"])
    assert sum(_bag(rows["partitioned"]).values()) == PARTITIONED_KEPT


# ------------------------------------------------------------------------------ engine cases

# tests/engine/test_row_to_row_pipelines.py's cases, by title: each runs its own test there, whose
# pushing cases compare the original's and the rewritten pipeline's bags
ENGINE_CASES = (
    "filter on a UDF output pushes as the equivalent source predicate",
    "inner join, filter on both sides: each side gets its part, late filter kept",
    "left join, null-rejecting filter on the joined side: pushed there, late filter kept",
    "left join, IS NULL on the joined side: must not be pushed there",
)

# run in a Python process of its own, as the cluster's one driver for all the cases
ENGINE_RUNNER = """
import json, os, sys, traceback
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master(os.environ[sys.argv[1]]).config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2").getOrCreate())
from tests.engine import test_row_to_row_pipelines as module
cases = {c.title: c for c in module.CASES}
outcome = {"master": spark.sparkContext.master, "cases": {}}
for title in sys.argv[2:]:
    try:
        module.test_pushdown_case(spark, cases[title])
        outcome["cases"][title] = "passed"
    except BaseException as err:
        outcome["cases"][title] = f"{type(err).__name__}: {err}\\n{traceback.format_exc()[-3000:]}"
spark.stop()
print("OUTCOME " + json.dumps(outcome))
"""


@pytest.fixture(scope="module")
def engine_outcome(cluster: Cluster) -> dict[str, Any]:  # noqa: F811
    env = {**os.environ, **cluster.driver_env()}
    env.pop("PYTEST_CURRENT_TEST", None)  # the runner is no pytest test (tests/engine/connect_parity.py)
    done = subprocess.run([sys.executable, "-c", ENGINE_RUNNER, MASTER_VARIABLE, *ENGINE_CASES], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("OUTCOME ")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    return json.loads(lines[-1].removeprefix("OUTCOME "))


@pytest.mark.parametrize("title", ENGINE_CASES)
def test_an_engine_case_holds_on_the_cluster(engine_outcome, cluster, title):  # noqa: F811
    assert engine_outcome["master"] == cluster.url
    assert engine_outcome["cases"][title] == "passed"


# ------------------------------------------------------------------------------ cancel

HUGE = 10**12
UI_PORT = free_port()  # the driver's UI (its REST API lists the jobs), on a port of this test's own
CANCEL_CELLS = [
    ("import os\nfrom pyspark.sql import SparkSession, functions as F\nfrom pyspark.sql.types import IntegerType\n"
     f"spark = (SparkSession.builder.master(os.environ['{MASTER_VARIABLE}']).config('spark.ui.port', '{UI_PORT}')\n"
     "         .config('spark.ui.enabled', 'true').config('spark.sql.shuffle.partitions', '2').getOrCreate())"),
    f"df = spark.range(0, {HUGE}).selectExpr('id AS k', 'CAST(id % 1000 AS INT) AS v')",
    ("@F.udf(returnType=IntegerType())\ndef bump(v):\n    return v + 5\n\n"
     "scored = df.withColumn('score', bump(F.col('v')))"),
    "late = scored.filter(F.col('score') > 1000)",
]


@pytest.fixture
def huge_kernel(jp_serverapp, cluster, monkeypatch):  # noqa: F811
    """A kernel of the Jupyter server whose session runs on the cluster, the huge pipeline traced."""
    for name, value in cluster.driver_env().items():
        monkeypatch.setenv(name, value)  # the kernel inherits it
    km = jp_serverapp.kernel_manager
    loop = ensure_event_loop(prefer_selector_loop=True)
    kernel_id, client, trace, ui = loop.run_until_complete(_start(km, CANCEL_CELLS))
    client.stop_channels()
    yield kernel_id, trace, ui
    loop.run_until_complete(km.shutdown_kernel(kernel_id, now=True))


async def test_cancel_stops_the_clusters_job_and_the_session_runs_the_next(
        jp_fetch, jp_serverapp, jp_http_port, jp_auth_header, jp_base_url, huge_kernel, cluster):  # noqa: F811
    kernel_id, trace, ui = huge_kernel
    cells = [{"source": src, "cell_type": "code", "id": f"c{i}"} for i, src in enumerate(CANCEL_CELLS)]
    response = await jp_fetch("magicpush-lab", "optimize", method="POST", request_timeout=300, body=json.dumps(
        {"trace": trace, "notebook": {"path": "huge.ipynb", "cells": cells}, "kernel_id": kernel_id,
         "measure": False}))
    suggestions = json.loads(response.body)["suggestions"]
    assert suggestions, "the pipeline's filter must be proved for this test to mean anything"
    # no time limit: without a cancel the exact count of 10**12 rows would run on
    body = {"kernel_id": kernel_id, "suggestions": suggestions[:1], "measure_time_limit": 3600}
    await _cancelled_once_running(jp_http_port, jp_auth_header, jp_base_url, "measure", body, ui)
    cancelled = time.monotonic()

    client = await _client(jp_serverapp, kernel_id)
    # a safety bound, not a timing: the count of 10**12 rows would take days on this worker
    waited = await _idle_within(client, 60, cancelled)
    print(f"the kernel answered {waited:.1f} s after the cancel")
    content = await run_in_kernel(client, "sc = spark.sparkContext", {
        "active": "sc.statusTracker().getActiveJobsIds()",
        "stages": "sc.statusTracker().getActiveStageIds()",
        "next": "spark.range(1000).filter('id % 7 = 0').count()",
        "master": "sc.master",
    })
    results = {k: v["data"]["text/plain"] for k, v in content["user_expressions"].items()}
    assert results["active"] == "[]" and results["stages"] == "[]", results
    assert _spark_jobs(ui, "running") == []
    assert "FAILED" in [str(s) for s in _job_states(ui)]  # the measurement's job, cancelled
    # the session goes on: the next job runs on the cluster's executor
    assert results["next"] == str(len(range(0, 1000, 7))) and results["master"] == repr(cluster.url), results


def _job_states(ui: str) -> list[str]:
    """The status of every job of the driver whose UI is at `ui` (Spark's REST API)."""
    import urllib.request

    with urllib.request.urlopen(f"{ui}/api/v1/applications", timeout=30) as reply:
        app = json.load(reply)[0]["id"]
    with urllib.request.urlopen(f"{ui}/api/v1/applications/{app}/jobs", timeout=30) as reply:
        return [job["status"] for job in json.load(reply)]
