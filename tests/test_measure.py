"""Counting rows before and after a pushed predicate, and whether it reaches the source's
file scan, on real Spark."""

from __future__ import annotations

import pytest

from magicpush_lab.ir.expr import And, Cmp, Col, Func, IsNotNull, Lit, PyUdf
from magicpush_lab.measure import measure, rows_kept_on_sample, scan_filters


@pytest.fixture(scope="module")
def frames(spark):
    nums = spark.range(0, 1000).withColumnRenamed("id", "v")
    with_nulls = spark.createDataFrame([(1,), (None,), (5,), (None,), (9,)], "x int")
    return {0: nums, 1: with_nulls, 2: spark.range(0, 200000).withColumnRenamed("id", "v")}


def test_exact_counts(frames):
    assert measure(frames, 0, Cmp(">", Col("v", 1, "bigint"), Lit(995, "int"))) == (1000, 4, False)
    both = And((Cmp(">=", Col("v"), Lit(10, "int")), Cmp("<", Col("v"), Lit(20, "int"))))
    assert measure(frames, 0, both) == (1000, 10, False)


def test_null_predicate_drops_the_row(frames):
    assert measure(frames, 1, Cmp(">", Col("x"), Lit(2, "int"))) == (5, 2, False)
    assert measure(frames, 1, IsNotNull(Col("x"))) == (5, 3, False)


def test_python_udf_is_never_measured(frames):
    with pytest.raises(ValueError, match="Python UDF"):
        measure(frames, 0, Cmp(">", PyUdf("f", (Col("v"),), "int"), Lit(1, "int")))


def test_missing_event(frames):
    with pytest.raises(KeyError):
        measure(frames, 42, Cmp(">", Col("v"), Lit(1, "int")))


def test_time_limit_falls_back_to_a_sample(frames):
    before, after, estimated = measure(frames, 2, Cmp("<", Col("v"), Lit(50000, "int")), time_limit=0.0,
                                       sample_fraction=0.5, sample_time_limit=120)
    assert estimated is True
    assert 180000 < before < 220000
    assert 0.2 < after / before < 0.3


@pytest.fixture(scope="module")
def scanned(spark, tmp_path_factory):
    """Event 0: a Parquet file partitioned by `part`; event 1: the same rows in memory."""
    rows = [(i, i % 3, f"n{i}") for i in range(300)]
    path = str(tmp_path_factory.mktemp("scan") / "t")
    spark.createDataFrame(rows, "amount int, part int, name string").write.partitionBy("part").parquet(path)
    return {0: spark.read.parquet(path), 1: spark.createDataFrame(rows, "amount int, part int, name string")}


AMOUNT, PART, NAME = Col("amount", 1, "int"), Col("part", 2, "int"), Col("name", 3, "string")
OVER_100 = Cmp(">", AMOUNT, Lit(100, "int"))
UDF_OVER_3 = Cmp(">", PyUdf("bump", (AMOUNT,), "int"), Lit(3, "int"))

# (what is pinned down, event, predicate, scan, pushed filters, partition filters, reaches per conjunct)
SCAN_CASES = [
    ("a Parquet source with amount > 100 gets it as a pushed filter", 0, OVER_100,
     "Parquet", ["IsNotNull(amount)", "GreaterThan(amount,100)"], [], [True]),
    ("a Python UDF is evaluated after reading: not pushed", 0, UDF_OVER_3, "Parquet", [], [], [False]),
    ("a function Spark cannot translate is not pushed, though its IsNotNull is inferred", 0,
     Cmp("=", Func("upper", (NAME,), "string"), Lit("N1", "string")), "Parquet", [], [], [False]),
    ("a partition column's filter reaches the scan as a partition filter", 0,
     Cmp("=", PART, Lit(1, "int")), "Parquet", [], ["isnotnull(part)", "(part = 1)"], [True]),
    ("each conjunct is reported: the column comparison reaches the scan, the UDF does not", 0,
     And((OVER_100, UDF_OVER_3)), "Parquet", ["IsNotNull(amount)", "GreaterThan(amount,100)"], [],
     [True, False]),
    ("an in-memory source has no file scan: nothing is pushed and that is no failure", 1, OVER_100,
     None, [], [], [False]),
]


@pytest.mark.parametrize("case", SCAN_CASES, ids=[c[0] for c in SCAN_CASES])
def test_scan_filters(scanned, case):
    _, event, predicate, scan, pushed, partition, reaches = case
    report = scan_filters(scanned, event, predicate)
    assert report["scan"] == scan
    assert report["pushed"] == pushed and report["partition_filters"] == partition
    assert [c["reaches_scan"] for c in report["conjuncts"]] == reaches
    assert report["all_pushed"] == all(reaches)
    assert ("note" in report) == (scan is None)


def test_scan_filters_of_a_missing_event(scanned):
    with pytest.raises(KeyError):
        scan_filters(scanned, 42, OVER_100)


# ----------------------------------------------------------------------------- ranking alternatives


def test_rows_kept_on_sample_counts_each_predicate_in_one_job(frames):
    v = Col("v", 1, "bigint")
    high, low = Cmp(">", v, Lit(995, "int")), Cmp("<", v, Lit(10, "int"))
    assert rows_kept_on_sample(frames, 0, [high, low]) == ([4, 10], 1000)
    assert rows_kept_on_sample(frames, 0, [high, low], sample_rows=100) == ([0, 10], 100)


class _Tracer:
    """What measure_in_kernel needs of the kernel's tracer: its DataFrames."""

    def __init__(self, frames):
        self._frames = frames

    def frames(self):
        return self._frames

    def suspended(self):
        import contextlib

        return contextlib.nullcontext()


@pytest.mark.parametrize("first, second, chosen", [
    # the search's first choice keeps more rows here: the alternative is measured and chosen
    (Cmp("<", Col("v", 1, "bigint"), Lit(500, "int")), Cmp(">", Col("v", 1, "bigint"), Lit(990, "int")), 1),
    # the first choice keeps fewer: it stays
    (Cmp(">", Col("v", 1, "bigint"), Lit(990, "int")), Cmp("<", Col("v", 1, "bigint"), Lit(500, "int")), 0),
])
def test_alternatives_are_ranked_by_rows_kept_and_the_chosen_one_is_measured(frames, first, second, chosen):
    from magicpush_lab.ir.serialize import expr_to_json
    from magicpush_lab.assist import apply_measurements, measure_requests
    from magicpush_lab.kernel.bundles import measure_in_kernel
    from magicpush_lab.suggestion import Suggestion

    base = Suggestion("nums", str(first), "superset", (), (), 0, expr_to_json(first))
    alt = Suggestion("nums", str(second), "superset", (), (), 0, expr_to_json(second))
    s = Suggestion("nums", str(first), "superset", (), (), 0, expr_to_json(first), alternatives=(alt,))
    [m] = measure_in_kernel(_Tracer(frames), measure_requests([s]))
    assert m["ranking"] == {"rows_kept": [500, 9], "sample_rows": 1000} if chosen else \
        m["ranking"] == {"rows_kept": [9, 500], "sample_rows": 1000}
    [ranked] = apply_measurements([s], [m]).suggestions
    assert ranked.predicate == (alt if chosen else base).predicate
    assert ranked.rows_after == 9  # the counts are the chosen predicate's
    assert [a.predicate for a in ranked.alternatives] == [(base if chosen else alt).predicate]
    assert ranked.ranked == "keeps 9 rows of the first 1,000 rows; the alternative keeps 500"




def _interrupt_now() -> None:
    """The kernel's interrupt: SIGINT to this process, raised in its main thread."""
    import os
    import signal

    os.kill(os.getpid(), signal.SIGINT)


def _run_past_its_limit(run_limited, df, work):
    assert run_limited(df, work, 0.5) is None


def _run_interrupted(run_limited, df, work):
    with pytest.raises(KeyboardInterrupt):
        run_limited(df, work, 3600)


# (how the measurement is stopped, what its thread does first, then how long it waits to submit)
LATE_JOBS = [
    pytest.param(_run_past_its_limit, lambda: None, 12.0, id="past its time limit, submitted 12 s later"),
    # the thread.join() that an interrupt cut short once said the thread had ended
    pytest.param(_run_interrupted, _interrupt_now, 3.0, id="interrupted, submitted 3 s later"),
]


@pytest.mark.parametrize("stopped, first, delay", LATE_JOBS)
def test_a_measurement_stopped_before_its_job_was_submitted_cancels_the_job_when_it_comes(
        spark, stopped, first, delay):
    """On a busy machine many seconds can pass between the stop and the job's submission; the
    stop's cancels must still reach it, while the caller is free at once."""
    import signal
    import threading
    import time

    from magicpush_lab.measure import run_limited

    huge = spark.range(0, 10**12)
    group: list[str] = []

    def late_work() -> tuple[int, int]:
        group.append(threading.current_thread().name)  # the measurement's job group
        first()
        time.sleep(delay)
        return huge.count(), 0  # minutes of work unless cancelled

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        stopped(run_limited, huge, late_work)
    finally:
        signal.signal(signal.SIGINT, previous)
    # the caller is free while the measurement's thread has not even submitted its job
    assert any(t.name == group[0] for t in threading.enumerate())
    tracker = spark.sparkContext.statusTracker()
    deadline = time.monotonic() + delay + 90
    statuses: set[str] = set()
    while time.monotonic() < deadline:
        statuses = {tracker.getJobInfo(j).status for j in tracker.getJobIdsForGroup(group[0])
                    if tracker.getJobInfo(j)}
        if statuses and "RUNNING" not in statuses:
            break
        time.sleep(0.5)
    assert statuses == {"FAILED"}, statuses  # submitted, then cancelled: Spark reports it FAILED



def test_a_cancelled_noop_write_says_nothing_and_leaves_the_users_log_levels_as_they_were(spark):
    """A measurement past its time limit cancels its own noop write: Spark's reports of the
    aborted write and the killed tasks are not logged, and afterwards every log level is the
    user's again, a logger the user gave a level of its own included."""
    import time

    from pyspark.sql import functions as F

    from magicpush_lab.measure import QUIET_LOGGERS, QUIET_LOGS, run_limited
    from tests.spark_logs import LOGGED_NOISE, spark_log, users_levels

    # an earlier test's stopped measurement may still be ending, its logs quiet until it has
    assert QUIET_LOGS.wait_restored(120)
    jvm = spark.sparkContext._jvm
    log4j = jvm.org.apache.logging.log4j
    # a notebook's own settings: Spark's default WARN, and one logger of Spark's set by the user
    spark.sparkContext.setLogLevel("WARN")
    log4j.core.config.Configurator.setLevel("org.apache.spark.scheduler.TaskSetManager", log4j.Level.ERROR)
    try:
        before = users_levels(spark, QUIET_LOGGERS)

        # hours of work unless cancelled, in a Python UDF: a killed task stops with its Python
        # worker (a loop in the JVM alone, over spark.range, can run on long after its kill)
        @F.udf("long")
        def slow(x):
            time.sleep(0.01)
            return x

        endless = spark.range(0, 10**6, numPartitions=2).select(slow("id").alias("id"))

        def write() -> tuple[int, int]:
            endless.write.format("noop").mode("overwrite").save()
            return 0, 0

        with spark_log(spark) as logged:
            assert run_limited(endless, write, 3.0) is None
            # the levels come back once the cancelled tasks have reported back, in the background
            assert QUIET_LOGS.wait_restored(120)
            said = logged()
        assert users_levels(spark, QUIET_LOGGERS) == before
        assert before[1]["org.apache.spark.scheduler.TaskSetManager"] == ("ERROR", True)
    finally:
        spark.sparkContext.setLogLevel("ERROR")  # the test session's level
        context = log4j.LogManager.getContext(False)
        context.getConfiguration().removeLogger("org.apache.spark.scheduler.TaskSetManager")
        context.updateLoggers()
    assert not [word for word in LOGGED_NOISE if word in said], said
