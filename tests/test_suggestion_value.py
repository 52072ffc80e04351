"""Suggestions ranked by what they are worth, and those worth nothing kept out of bulk rewrites.

Counting rows decides the order every face shows (assist.with_measurements, suggestion.by_value):
the filter that removes the most rows first; one counted to remove none is shown last, as having
no benefit, and no face applies it in bulk: not `magicpush optimize --apply` (cli.cell_changes),
not `%magicpush apply N --together`, not a pipeline's joint rewrite. Plain data: no Spark here;
the counts come from the kernel in tests/test_measure.py and tests/test_cli.py.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from magicpush_lab.assist import with_measurements
from magicpush_lab.cli import cell_changes
from magicpush_lab.kernel.magic import apply_bundle
from magicpush_lab.suggestion import CellChange, OptimizeResult, Suggestion, Together

CELLS = ("a = spark.read.parquet(p)", "b = spark.read.parquet(q)")


def _s(source: str, index: int, pipeline: str = "out") -> Suggestion:
    cell = CellChange(index, CELLS[index], CELLS[index] + f'.filter(F.col("{source}") > 1)', index + 1)
    return Suggestion(source, f'F.col("{source}") > 1', "superset", (), (cell,), index, {}, pipeline=pipeline)


COUNTED = {"removes rows": {"rows_before": 1000, "rows_after": 4},
           "removes none": {"rows_before": 1000, "rows_after": 1000},
           "removes none on a sample": {"rows_before": 1000, "rows_after": 1000, "estimated": True},
           "empty read": {"rows_before": 0, "rows_after": 0},
           "not counted": {"error": "no session"}}


@pytest.mark.parametrize("counted, no_benefit", [
    ("removes rows", False),
    ("removes none", True),
    ("removes none on a sample", False),  # a sample cannot say "none"
    ("empty read", False),  # nothing to say of an empty read
    ("not counted", False),  # offered as proved
])
def test_a_suggestion_counted_to_remove_no_row_stays_marked_as_no_benefit(counted, no_benefit):
    s = _s("a", 0)
    got = with_measurements(OptimizeResult((s,), 0.1), [COUNTED[counted]])
    assert [x.source for x in got.suggestions] == ["a"]  # shown, whatever its worth
    assert any(n.startswith("no benefit: ") for n in got.notes) == no_benefit


@pytest.mark.parametrize("counts, order", [
    # (rows_before, rows_after) per suggestion a, b, c -> the order shown
    (((1000, 900), (1000, 10), (1000, 500)), "bca"),
    (((1000, 1000), (1000, 10), None), "bca"),  # counted: rows removed; uncounted next; worthless last
    ((None, (1000, 1000), (10, 9)), "cab"),
    (((100, 50), (1000, 950), (10, 5)), "abc"),  # equal worth keeps the search's order
])
def test_suggestions_are_shown_most_rows_removed_first(counts, order):
    sugg = tuple(replace(_s(n, i % 2), source_event=i) for i, n in enumerate("abc"))
    measurements = [{"rows_before": c[0], "rows_after": c[1]} if c else {"error": "not counted"} for c in counts]
    got = with_measurements(OptimizeResult(sugg, 0.1), measurements)
    assert "".join(s.source for s in got.suggestions) == order


def _two_in_one_pipeline(after_b: int) -> OptimizeResult:
    a, b = _s("a", 0), _s("b", 1)
    joint = Together("out", "superset", tuple(c for s in (a, b) for c in s.cells), 2)
    measured = with_measurements(OptimizeResult((a, b), 0.1, together=(joint,)),
                                 [{"rows_before": 1000, "rows_after": 10}, {"rows_before": 1000, "rows_after": after_b}])
    return measured


def test_a_joint_rewrite_of_filters_that_all_remove_rows_is_applied_in_bulk():
    result = _two_in_one_pipeline(after_b=600)
    assert result.together[0].no_benefit == ()
    changes, skipped = cell_changes(result)
    assert skipped == [] and sorted(changes) == [0, 1]
    assert "--together" in apply_bundle(result, 1, False, {})["text/plain"]


def test_a_joint_rewrite_holding_a_worthless_filter_is_not_applied_in_bulk():
    result = _two_in_one_pipeline(after_b=1000)
    assert result.together[0].no_benefit == ('F.col("b") > 1 on b',)
    changes, skipped = cell_changes(result)
    # the valuable filter alone (proved alone), the worthless one left out, said
    assert sorted(changes) == [0] and ".filter(" in changes[0]
    assert skipped == ["not applied (no benefit: it removes no rows): filter on b"]
    refused = apply_bundle(result, 1, True, {})["text/plain"]
    assert "removes no rows" in refused and "apply the filter you want alone" in refused
    assert "--together" not in apply_bundle(result, 1, False, {})["text/plain"]


def test_a_worthless_filter_of_its_own_pipeline_is_not_applied_by_the_command_line():
    a, b = _s("a", 0, "one"), _s("b", 1, "two")
    result = with_measurements(OptimizeResult((a, b), 0.1),
                               [{"rows_before": 10, "rows_after": 10}, {"rows_before": 10, "rows_after": 2}])
    changes, skipped = cell_changes(result)
    assert sorted(changes) == [1] and skipped == ["not applied (no benefit: it removes no rows): filter on a"]
