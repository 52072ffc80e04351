"""A pipeline's suggestions applied together: the joint rewrite (`OptimizeResult.together`).

Each case is a notebook whose pipeline pushes filters to several sources. The joint rewrite
must add every filter (in one cell when the sources are read in one cell), remove the late
filter only when every push is an equivalence, and give the original rows when the rewritten
notebook runs. Each "pushes" case has a "must not push" neighbour with no joint rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.cli import cell_changes
from magicpush_lab.pipeline import optimize_trace
from tests.cells import out_bag, traced

SOURCES = ("from pyspark.sql import functions as F\n"
           'a = spark.createDataFrame([(i, i % 10) for i in range(50)], ["k", "v"])\n'
           'b = spark.createDataFrame([(i, i % 7) for i in range(50)], ["k", "x"])')
# `v % 10 + 1` cannot overflow: computed after the join, `v + 1` could on a row the join drops,
# and a predicate computing it at the source is refused (verify/overflow.py)
JOINED = 'j = a.join(b, "k").withColumn("s", F.col("v") % 10 + 1)\n'


@dataclass(frozen=True)
class Case:
    late: str  # the late filter's condition
    kind: str | None  # the joint rewrite's kind; None: there must be none
    filters_added: int = 0


CASES = {
    "a_filter_for_each_side_of_the_join": Case('(F.col("s") > 5) & (F.col("x") < 3)', "superset", 2),
    # one push is an equivalence, the key transferred to the other side only a superset: keep the late filter
    "a_join_key_filter_reaches_both_sides": Case('F.col("k") > 5', "superset", 2),
    # must not push: a row of either side can pass through the other side's disjunct
    "a_disjunction_across_the_sides_pushes_nothing": Case('(F.col("s") > 5) | (F.col("x") < 3)', None),
}




@pytest.mark.parametrize("name", list(CASES))
def test_the_joint_rewrite_adds_every_filter_and_keeps_the_rows(name, spark, shell):
    case = CASES[name]
    cells = [SOURCES, JOINED + f"out = j.filter({case.late})"]
    result = optimize_trace(traced(shell, cells), cells)
    if case.kind is None:
        assert result.together == () and result.suggestions == (), result
        return
    [joint] = result.together
    assert (joint.pipeline, joint.kind, joint.suggestions) == ("out", case.kind, len(result.suggestions))
    new = list(cells)
    for change in joint.cells:
        new[change.index] = change.rewritten
    assert new[0].count(".filter(") == case.filters_added, new[0]
    assert (".filter(" in new[1]) == (case.kind == "superset"), new[1]
    assert out_bag(spark, new) == out_bag(spark, cells), new
    # the command line writes the joint rewrite, not one suggestion with the others skipped
    changes, skipped = cell_changes(result)
    assert skipped == [] and changes == {c.index: c.rewritten for c in joint.cells}


def test_a_push_that_cannot_be_written_is_left_out_of_the_joint_rewrite_which_keeps_the_late_filter(
        spark, shell, monkeypatch):
    """Three sources, each filter placeable, then the third one's placement refused (as when its
    read is in code that cannot take it): the joint rewrite holds the other two filters, and the
    late filter stays."""
    from magicpush_lab.rewrite import assemble
    from magicpush_lab.rewrite.placement import CannotPlace

    cells = [SOURCES + '\nc = spark.createDataFrame([(i, i % 4) for i in range(50)], ["k", "z"])',
             JOINED + 'j = j.join(c, "k")\nout = j.filter((F.col("s") > 5) & (F.col("x") < 3) & (F.col("z") < 2))']
    placed = assemble._place

    def refusing_c(trace, pushed, peers):
        if any(col.name == "z" for col in pushed.source.output):
            raise CannotPlace("refused for the test")
        return placed(trace, pushed, peers)

    monkeypatch.setattr(assemble, "_place", refusing_c)
    result = optimize_trace(traced(shell, cells), cells)
    [joint] = result.together
    assert (joint.kind, joint.suggestions) == ("superset", 2), result.notes
    new = list(cells)
    for change in joint.cells:
        new[change.index] = change.rewritten
    assert new[0].count(".filter(") == 2 and ".filter(" in new[1], new
    assert out_bag(spark, new) == out_bag(spark, cells), new
