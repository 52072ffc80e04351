"""A cell that failed is said first, with its cause; what ran before it is still optimized.

When the last cell run raised, the cells after it have not run, so their pipeline is not in
the trace. The tracer records the failed execution's error as one line (its root cause,
errortext.error_line), and the result says which cell failed and why (`failed_cell`, and the
first note), beside whatever the cells before it give. Each case runs real cells in a traced
shell on a local session; the neighbour whose failing cell ran before a successful one says
nothing of it.
"""

from __future__ import annotations

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import out_bag, rewritten

SOURCE = ("from pyspark.sql import functions as F\n"
          'a = spark.createDataFrame([(i, i % 10) for i in range(50)], ["k", "v"])')
PIPELINE = 'out = a.withColumn("w", F.col("v") * 3).filter(F.col("w") > 20)'


def _run(ip, sources: list[str]) -> None:
    for src in sources:
        ip.run_cell(src, store_history=True)  # a failing cell is part of the case


@pytest.mark.parametrize("failing, said", [
    ("ratio = 1 / 0", "ZeroDivisionError: division by zero"),
    # an error inside a Python worker: its cause, not the wrapper's first line
    ('bad = a.withColumn("r", F.udf(lambda v: 1 // (v - v), "long")("v")).collect()',
     "ZeroDivisionError: integer division or modulo by zero"),
])
def test_the_last_cell_failed_is_said_and_the_cells_before_are_still_optimized(failing, said, spark, shell):
    ip, tracer = shell
    cells = [SOURCE, PIPELINE, failing]
    _run(ip, cells)
    result = optimize_trace(tracer.trace(), cells)
    assert result.failed_cell is not None and said in result.failed_cell["error"], result.failed_cell
    assert result.notes[0].startswith(f"cell [{result.failed_cell['execution_count']}] failed (")
    assert "the cells after it have not run" in result.notes[0]
    [s] = result.suggestions  # the pipeline before it, optimized as ever
    assert out_bag(spark, rewritten(cells[:2], s)) == out_bag(spark, cells[:2])

def test_a_failure_followed_by_a_successful_run_is_not_said(spark, shell):
    ip, tracer = shell
    cells = [SOURCE, "ratio = 1 / 0", PIPELINE]
    _run(ip, cells)
    result = optimize_trace(tracer.trace(), cells)
    assert result.failed_cell is None
    assert not any("failed (" in n for n in result.notes)
    assert len(result.suggestions) == 1
