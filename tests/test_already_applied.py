"""Optimizing again after a suggestion was applied: what is in place is said, never offered twice.

A filter applied at a source stays in the cells, and the late filter stays with it when the
push was a superset one; optimizing that notebook again walks the late filter down to the
applied filter. There the pushed predicate keeps every row the applied filter keeps, so nothing
is offered for that source, and `already_applied` names the filter (pushdown/walk.py,
rewrite/notes.already_json). Each case compares the rows of the notebook as suggested with the
original's; each "in place" case has a neighbour whose earlier filter is weaker, where the
stronger filter is still offered.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import out_bag, rewritten, traced

SOURCES = ("from pyspark.sql import functions as F\n"
           'a = spark.createDataFrame([(i, i % 10) for i in range(60)], ["k", "v"])\n'
           'b = spark.createDataFrame([(i, i % 7) for i in range(60)], ["k", "x"])')
JOINED = 'j = a.join(b, "k").withColumn("s", F.col("v") % 10 + 1)\n'
LATE = 'out = j.filter((F.col("s") > 5) & (F.col("x") < 3))'




def test_a_joint_rewrite_applied_is_in_place_and_not_offered_again(spark, shell):
    cells = [SOURCES, JOINED + LATE]
    first = optimize_trace(traced(shell, cells), cells)
    [joint] = first.together
    applied = rewritten(cells, joint)
    assert applied[0].count(".filter(") == 2 and ".filter(" in applied[1], applied

    again = optimize_trace(traced(shell, applied), applied)
    assert again.suggestions == () and again.together == (), again.suggestions
    assert len(again.already_applied) == 2, again.already_applied
    assert all(a["pipeline"] == "out" and "already in place" in a["note"] for a in again.already_applied)
    # each names the applied filter's own code and cell
    assert all(".filter(" in a["step"] and "cell [" in a["step"] for a in again.already_applied), again.already_applied
    assert any("already in place" in n for n in again.notes) and not any("nothing could be pushed" in n
                                                                      for n in again.notes)
    assert out_bag(spark, applied) == out_bag(spark, cells)


@dataclass(frozen=True)
class Earlier:
    earlier: str  # a filter of the user's on `a`, right after its read
    in_place: bool  # whether it keeps only rows the pushed `v` predicate keeps


CASES = {
    # the pushed predicate is `v % 10 + 1 > 5`: an earlier filter as strong or stronger does it
    "an_earlier_filter_as_strong_is_in_place": Earlier('F.col("v") % 10 >= 5', True),
    "an_earlier_stronger_filter_is_in_place": Earlier('(F.col("v") % 10 + 1 > 7) & (F.col("k") < 40)', True),
    # must not: a weaker earlier filter leaves rows the pushed predicate removes
    "an_earlier_weaker_filter_still_gets_the_pushed_one": Earlier('F.col("v") % 10 + 1 > 2', False),
    "an_earlier_filter_on_another_column_still_gets_it": Earlier('F.col("k") < 40', False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_earlier_filter_that_implies_the_pushed_predicate_takes_its_place(name, spark, shell):
    case = CASES[name]
    cells = [SOURCES + f"\na = a.filter({case.earlier})", JOINED + LATE]
    result = optimize_trace(traced(shell, cells), cells)
    on_a = [s for s in result.suggestions if '"v"' in s.predicate]
    assert bool(on_a) != case.in_place, result.suggestions
    in_place = [a for a in result.already_applied if '"v"' in a["predicate"]]
    assert bool(in_place) == case.in_place, result.already_applied
    for s in result.suggestions:  # whatever is offered keeps the rows
        assert out_bag(spark, rewritten(cells, s)) == out_bag(spark, cells), s.predicate
