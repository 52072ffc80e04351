"""Which notebook cell gets the pushed filter when cells share their code.

An execution is matched to its notebook cell by the cell id JupyterLab sends with
it; without ids only code that no other cell has is matched. The cases are
notebooks where two cells hold the same source-reading code and only the later
one's DataFrame feeds the pipeline: putting the filter into the earlier one and
removing the late filter would change the result when the notebook runs top to
bottom. Each case runs the notebook traced, optimizes it, and runs every
suggestion's rewritten notebook top to bottom, which must give the original rows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import run_cells

READ = 'sales = spark.createDataFrame([(i, i % 10) for i in range(30)], "id int, v int")'
CELLS = [
    READ,
    'from pyspark.sql import functions as F\ntwice = F.udf(lambda x: 2 * x, "int")\nfirst_total = sales.count()',
    READ,
    'out = sales.withColumn("w", twice("v")).filter("w > 12")',
]
IDS = ["c-read-1", "c-count", "c-read-2", "c-late"]


@dataclass(frozen=True)
class Case:
    cells: list[str]
    sent_ids: list[str | None] | None  # what the front end sends with the notebook
    rewritten_cell: int | None  # the cell that must get the filter; None: no suggestion may rewrite
    edited_after_run: dict[int, str] | None = None  # the notebook as sent differs from what ran


CASES = {
    "ids_pick_the_later_of_two_equal_cells": Case(CELLS, IDS, rewritten_cell=2),
    # must not push into either: equal code, no ids, nothing tells which one ran last
    "equal_cells_without_ids_are_left_alone": Case(CELLS, None, rewritten_cell=None),
    # must not push: the cell that ran was edited afterwards, so the traced positions are stale
    "a_cell_edited_after_it_ran_is_left_alone": Case(
        CELLS, IDS, rewritten_cell=None,
        edited_after_run={2: READ.replace("range(30)", "range(31)")}),
}


def _run(spark, cells: list[str]) -> Counter:
    ns = {"spark": spark}
    for src in cells:
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - running notebook cells under test
    return Counter(map(tuple, ns["out"].collect()))


@pytest.mark.parametrize("name", list(CASES))
def test_the_filter_goes_into_the_cell_that_ran(name, spark, shell):
    case = CASES[name]
    ip, tracer = shell
    run_cells(ip, case.cells, IDS[:len(case.cells)])
    notebook = list(case.cells)
    for i, src in (case.edited_after_run or {}).items():
        notebook[i] = src
    result = optimize_trace(tracer.trace(), notebook, cell_ids=case.sent_ids)
    expected = _run(spark, notebook)
    if case.rewritten_cell is None:
        assert all(not s.cells for s in result.suggestions), result.suggestions
        assert any("cannot be rewritten" in n for n in result.notes), result.notes
        return
    assert result.suggestions, result.notes
    for s in result.suggestions:
        assert case.rewritten_cell in [c.index for c in s.cells], s.cells
        new = list(notebook)
        for change in s.cells:
            assert new[change.index] == change.original
            new[change.index] = change.rewritten
        assert new[0] == notebook[0], "the earlier, equal cell must keep its code"
        assert _run(spark, new) == expected, new
