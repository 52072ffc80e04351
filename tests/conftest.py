"""Shared fixtures and the test tiers.

Fixtures: one local SparkSession for the whole run (`spark`), and an IPython shell with the tracer
loaded (`shell`); tests/cells.py runs notebook cells in it as a notebook's kernel does.

Tiers, by marker (set here from what a test uses, so no test has to remember to):
- `spark`: needs a SparkSession, so a JVM (any test using the `spark` fixture);
- `kernel`: starts Jupyter kernels or a Jupyter server (replay, the CLI, the server routes);
- `slow`: long runs kept out of quick feedback loops.
The fast tier, `python -m pytest -m "not spark and not kernel and not slow"`, needs no JVM:
in it, starting one fails the test that tries.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

try:
    # PySpark's Connect client checks its dependencies on first import by reading
    # `sys.modules["__main__"].__spec__`; an IPython shell made by a test (the `shell` fixture)
    # puts a module without that attribute there, so a worker that reached Connect only after such
    # a test failed to import it. Imported here, first, with the worker's own __main__.
    import pyspark.sql.connect.session  # noqa: F401
except ImportError:  # a client without the Connect extras: the Connect tests skip themselves
    pass

FAST_TIER = "not spark and not kernel and not slow"

# Every JVM the suite starts (its own session, the Connect servers, the kernels replaying
# notebooks: they inherit this environment) lives for seconds to minutes on tables of a few
# rows, and spends most of its start-up compiling Spark's hot paths twice, first quickly (C1),
# then optimised (C2). C1 alone starts a session and runs its first jobs in about half the
# time on 2 cores; the tests' tiny jobs never run long enough to miss C2. spark-submit adds
# SPARK_SUBMIT_OPTS to the driver's command line (JDK_JAVA_OPTIONS would do it too, but makes
# every JVM print a note into the kernels' outputs).
os.environ.setdefault("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1")

# The search's steps are capped in wall-clock time (magicpush_lab/budget.py). CI runs two
# workers on two cores beside their JVMs, where a step that takes 0.3 s of a 0.5 s cap when
# idle can take 3x that, and a case then proves a weaker filter than it pins. The tests pin
# what the search finds, not how fast: every cap is 4x here (the user's whole budget is not).
os.environ.setdefault("MAGICPUSH_STEP_TIME_SCALE", "4")

# modules whose tests start kernels of their own (replayed notebooks, a Jupyter server)
_KERNEL_MODULES = {"test_cli", "test_example_notebook", "test_joint_rewrite", "test_notebook_dataflow",
                   "test_replay", "test_runtime", "test_server", "test_server_bad_input",
                   "test_benchmarks_smoke", "test_rewrite_styles", "test_cell_identity"}
_KERNEL_FIXTURES = {"jp_fetch", "jp_serverapp", "pipeline_kernel"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if "spark" in names or "shell" in names:
            item.add_marker(pytest.mark.spark)
        if names & _KERNEL_FIXTURES or Path(str(item.fspath)).stem in _KERNEL_MODULES:
            item.add_marker(pytest.mark.kernel)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--connect-matrix", choices=("reading", "full"), default="reading",
                     help="the Spark Connect copies of engine cases: end where the pipeline reads into the IR "
                          "of its classic run (reading, the default), or always run to the end (full); "
                          "tests/engine/connect_parity.py")


def pytest_configure(config: pytest.Config) -> None:
    if "not spark" in (config.option.markexpr or ""):
        _forbid_jvm()


def _forbid_jvm() -> None:
    """A test in the fast tier that starts a JVM is in the wrong tier: make it say so."""
    try:
        import pyspark.java_gateway as gateway
    except ImportError:
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError("this test starts a JVM: it belongs to the spark tier (use the `spark` fixture)")

    gateway.launch_gateway = refuse


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]")
               .appName("magicpush-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture()
def shell(spark):
    """(IPython shell, its tracer): cells run in it are traced as in a notebook's kernel."""
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.kernel.extension import load, unload

    ip = InteractiveShell.instance()
    tracer = load(ip)
    ip.user_ns["spark"] = spark
    yield ip, tracer
    unload(ip)


# -- the optimizer's time against its budget, over the whole run ------------------------------
_BUDGET_RUNS: list[tuple[float, float, str]] = []  # (seconds spent, seconds of budget, test)


@pytest.fixture(autouse=True, scope="session")
def _watch_budgets():
    """Every optimization the suite runs is timed against its budget (the report says how far
    over it any went); the engine's functions are wrapped, not changed."""
    import time

    from magicpush_lab import pipeline

    inner = pipeline._optimize_trace

    def timed(*args, **kwargs):
        budget = args[-1] if args else kwargs["budget"]
        seconds = budget.seconds
        try:
            return inner(*args, **kwargs)
        finally:
            if seconds > 0 and budget.seconds > 0:  # a cancelled budget was not the user's to spend
                test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
                _BUDGET_RUNS.append((time.monotonic() - budget.started, seconds, test))

    pipeline._optimize_trace = timed
    yield
    pipeline._optimize_trace = inner


@pytest.fixture(autouse=True)
def _optimizer_idle_after_each_test():
    """No test may leave the server's optimizer thread running into the next test: Z3's context
    is shared by the whole process, and the next test builds terms in it from its own thread."""
    import sys
    import time

    yield
    routes = sys.modules.get("magicpush_lab.server.routes")
    if routes is None:
        return
    queue = routes.OPTIMIZER
    ends = time.monotonic() + 120
    while (queue.running is not None or queue.waiting()) and time.monotonic() < ends:
        time.sleep(0.05)
    assert queue.running is None and not queue.waiting(), "the server's optimizer still runs after the test"


def pytest_sessionfinish(session: pytest.Session) -> None:
    # under pytest-xdist (scripts/test.sh runs the suite on two workers) the figures of the
    # summary below are each worker's: they go to the controller, which writes the summary
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        from tests.engine import connect_parity

        output["budget_runs"] = [list(run) for run in _BUDGET_RUNS]
        output["connect_readings"] = dict(connect_parity.READINGS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    from tests.engine import connect_parity

    output = getattr(node, "workeroutput", {})
    _BUDGET_RUNS.extend(tuple(run) for run in output.get("budget_runs", ()))
    for outcome, count in output.get("connect_readings", {}).items():
        connect_parity.READINGS[outcome] += count


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    from tests.engine import connect_parity

    readings = connect_parity.READINGS
    if readings["same"] or readings["differ"]:
        terminalreporter.write_line(
            f"Spark Connect copies of engine cases: {readings['same']} read as on classic and ended there, "
            f"{readings['differ']} read otherwise and ran to the end"
            + ("" if config.getoption("--connect-matrix") == "full" else
               " (--connect-matrix=full runs every copy to its end)"))
    # a budget under a tenth of a second is a test of running out, spent before the first check
    runs = [run for run in _BUDGET_RUNS if run[1] >= 0.1]
    if not runs:
        return
    spent, budget, test = max(runs, key=lambda run: run[0] / run[1])
    over = max(0.0, spent - budget)
    terminalreporter.write_line(
        f"optimizer: {len(runs)} optimizations (and {len(_BUDGET_RUNS) - len(runs)} with a budget under 0.1 s); "
        f"the closest to its budget took {spent:.2f} s of {budget:.2f} s ({spent / budget:.0%}, {test}); "
        f"most over budget: {over:.2f} s")
