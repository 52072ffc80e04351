"""What stayed behind is said: each conjunct of a late filter that did not move, with its step.

A late filter `(k > 5) & (t > 3)` over a groupBy moves its key conjunct to the source and keeps
the whole filter (a superset pushdown); the conjunct on the aggregate stops at the groupBy. The
result's `left_behind` names that conjunct, the step (its code, cell and line) and the reason,
and a note says it (rewrite/notes.left_behind_json), which every face shows. Each case runs the
suggestion and compares the rows with the original's; each "stays" case has a neighbour where
every conjunct moves and nothing is said to stay.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import out_bag, rewritten, traced

SOURCE = ("from pyspark.sql import functions as F\n"
          'a = spark.createDataFrame([(i % 9, i % 5, i) for i in range(80)], ["k", "v", "n"])')
GROUPED = 'g = a.groupBy("k").agg(F.sum("v").alias("t"))\n'


@dataclass(frozen=True)
class Case:
    late: str
    stays: tuple[str, ...]  # the conjuncts said to stay, as written in the note
    operator: str = "GroupBy"


CASES = {
    "a_conjunct_on_an_aggregate_stays_at_the_groupBy": Case('(F.col("k") > 5) & (F.col("t") > 3)', ('F.col("t") > 3',)),
    "two_of_three_stay_each_said_once": Case(
        '(F.col("k") > 5) & (F.col("t") > 3) & (F.col("t") < 30)', ('F.col("t") > 3', 'F.col("t") < 30')),
    # must not: every conjunct moves (an equivalence), nothing is said to stay
    "every_conjunct_on_the_key_moves_and_none_is_said": Case('(F.col("k") > 5) & (F.col("k") < 8)', ()),
}




@pytest.mark.parametrize("name", list(CASES))
def test_each_conjunct_left_in_the_late_filter_is_said_with_its_step(name, spark, shell):
    case = CASES[name]
    cells = [SOURCE, GROUPED + f"out = g.filter({case.late})"]
    result = optimize_trace(traced(shell, cells), cells)
    [s] = result.suggestions
    assert '"k"' in s.predicate and '"t"' not in s.predicate, s.predicate  # the key's conjuncts move
    assert s.kind == ("superset" if case.stays else "equivalent"), s.kind
    assert tuple(b["conjunct"] for b in result.left_behind) == case.stays, result.left_behind
    for b in result.left_behind:
        assert b["operator"] == case.operator and b["pipeline"] == "out"
        assert "groupBy" in b["step"] and "cell [" in b["step"], b["step"]
        assert any(n.startswith(f"`{b['conjunct']}` stays in the late filter: GroupBy") for n in result.notes)
    assert out_bag(spark, rewritten(cells, s)) == out_bag(spark, cells)
