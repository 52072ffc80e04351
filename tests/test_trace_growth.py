"""Tracing costs what each call adds: the trace grows linearly with the calls, a cell run again
replaces its events instead of adding to them, recording starts no Spark job, and a pipeline
built in a loop gets its rewrite, which gives the same rows as the original.

Growth is pinned without timing: bytes per recorded call, events kept, jobs started.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from magicpush_lab.kernel.bundles import trace_bundle
from magicpush_lab.pipeline import optimize_trace
from magicpush_lab.protocol import TRACE_MIME
from tests.cells import run_cell, run_cells

SOURCE = ("from pyspark.sql import functions as F\n"
          "src = spark.range(0, 1000).selectExpr('id AS a', 'id % 7 AS b')")
LOOP = "df = src\nfor i in range({k}):\n    df = df.withColumn(f'c{{i}}', F.col('a') + i)"
LATE = "result = df.filter(F.col('c0') > 990)"


def _trace_bytes() -> int:
    return len(json.dumps(trace_bundle()._repr_mimebundle_()[TRACE_MIME]))


def _loop_trace(shell, k: int):
    ip, tracer = shell
    run_cells(ip, [SOURCE, LOOP.format(k=k), LATE])
    return tracer.trace()


def test_bytes_per_recorded_call_stay_within_a_small_factor_from_50_to_200_calls(shell):
    ip, tracer = shell
    per_call = {}
    # four times the calls is enough to tell linear from quadratic growth; Spark's own analysis
    # of a chain of k withColumn calls costs about k squared, so 400 calls took a minute and a half
    for k in (50, 200):
        trace = _loop_trace(shell, k)
        per_call[k] = _trace_bytes() / len(trace.events)
    # each call adds a projection listing every column by reference (a few bytes each) and
    # its own expression: per-call bytes grow far slower than the plans Spark prints (a
    # quadratic trace would give four times the bytes per call)
    assert per_call[200] < 2.5 * per_call[50], per_call


def test_a_cell_run_again_replaces_its_events_instead_of_adding_to_them(shell):
    ip, tracer = shell
    first = _loop_trace(shell, 30)
    size = _trace_bytes()
    for _ in range(3):
        run_cells(ip, [LOOP.format(k=30), LATE])
    again = tracer.trace()
    assert len(again.events) == len(first.events)
    assert _trace_bytes() < 1.2 * size


def test_dataframes_nothing_holds_are_released_with_their_events(shell):
    ip, tracer = shell
    _loop_trace(shell, 20)
    kept = len(tracer.trace().events)
    run_cell(ip, "del df, result")
    left = tracer.trace().events
    assert [e.op for e in left] == ["range", "selectExpr"], "only src, and what it is made from, is held now"
    assert kept == 23


def test_recording_a_pipeline_starts_no_spark_job(spark, shell):
    ip, tracer = shell
    tracker = spark.sparkContext.statusTracker()
    before = set(tracker.getJobIdsForGroup(None))
    _loop_trace(shell, 40)
    tracer.trace()  # pulling the trace reads plans only
    assert set(tracker.getJobIdsForGroup(None)) == before


def _bag(spark, cells: list[str], name: str) -> Counter:
    ns = {"spark": spark}
    for src in cells:
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - running the notebook's cells under test
    return Counter(map(tuple, ns[name].collect()))


def _rewritten(cells: list[str], changes) -> list[str]:
    new = list(cells)
    for change in changes:
        assert new[change.index] == change.original
        new[change.index] = change.rewritten
    return new


@pytest.mark.parametrize("loop", [
    LOOP.format(k=60),
    # a comprehension builds it too
    "from functools import reduce\ndf = reduce(lambda d, i: d.withColumn(f'c{i}', F.col('a') + i), range(60), src)",
])
def test_a_pipeline_built_in_a_loop_gets_its_rewrite_with_the_same_rows(spark, shell, loop):
    cells = [SOURCE, loop, LATE]
    ip, tracer = shell
    run_cells(ip, cells)
    result = optimize_trace(tracer.trace(), cells)
    assert result.suggestions, result.notes
    [s] = result.suggestions
    assert s.source == "src" and "990" in s.predicate and s.kind == "equivalent"
    assert any("calls" in step.operator for step in s.proof), s.proof  # the loop's steps proved as one
    new = _rewritten(cells, s.cells)
    assert new[0] != cells[0]  # the filter went to the source, read once before the loop
    assert _bag(spark, new, "result") == _bag(spark, cells, "result")


def test_a_source_read_in_the_loop_is_refused_naming_the_loop_and_its_line(spark, shell):
    cells = ["from pyspark.sql import functions as F\nparts = []",
             "for n in range(3):\n    part = spark.range(0, 1000).selectExpr('id AS a')\n"
             "    parts.append(part.withColumn('s', F.col('a') + n))",
             "df = parts[0]\nresult = df.filter(F.col('s') > 990)"]
    ip, tracer = shell
    run_cells(ip, cells)
    result = optimize_trace(tracer.trace(), cells)
    assert not result.suggestions
    assert any("for loop of cell" in n and "line 1" in n for n in result.notes), result.notes


def test_a_late_filter_on_a_column_a_later_step_recomputes_reads_the_recomputation(spark, shell):
    """Must not push the late filter as if the run passed c0 through: the last step recomputes
    c0 from b (id % 7), so the filter at the source reads that, not the loop's a + 0."""
    cells = [SOURCE, LOOP.format(k=20) + "\ndf = df.withColumn('c0', F.col('b'))",
             "result = df.filter(F.col('c0') > 5)"]
    ip, tracer = shell
    run_cells(ip, cells)
    result = optimize_trace(tracer.trace(), cells)
    assert result.suggestions, result.notes
    [s] = result.suggestions
    assert s.predicate == 'F.col("id") % 7 > 5'  # b, read where src is made from range's id
    assert _bag(spark, _rewritten(cells, s.cells), "result") == _bag(spark, cells, "result")
