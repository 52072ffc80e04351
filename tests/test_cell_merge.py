"""Two suggestions' rewrites of one cell (rewrite/merge.py): both applied when they change
different lines, neither line lost; refused when they touch the same lines or one inserts where
the other changes."""

from __future__ import annotations

import pytest

from magicpush_lab.cli import cell_changes
from magicpush_lab.rewrite.merge import merged
from magicpush_lab.suggestion import CellChange, OptimizeResult, Suggestion

BASE = "a = spark.read.parquet('a')\nb = spark.read.parquet('b')\n\nout = a.join(b, 'k')\n"
A_FILTERED = BASE.replace("parquet('a')", "parquet('a').filter(F.col('x') > 1)")
B_FILTERED = BASE.replace("parquet('b')", "parquet('b').filter(F.col('y') < 2)")
A_OTHER = BASE.replace("parquet('a')", "parquet('a').filter(F.col('z') == 3)")
LINE_ADDED = BASE.replace("out = ", "# filter moved to the source\nout = ")

CASES = [
    ("different lines: both changes", A_FILTERED, B_FILTERED,
     BASE.replace("parquet('a')", "parquet('a').filter(F.col('x') > 1)")
         .replace("parquet('b')", "parquet('b').filter(F.col('y') < 2)")),
    ("the same rewrite twice: once", A_FILTERED, A_FILTERED, A_FILTERED),
    ("one side unchanged: the other's text", BASE, B_FILTERED, B_FILTERED),
    ("a line added apart from the other's change: both", A_FILTERED, LINE_ADDED,
     A_FILTERED.replace("out = ", "# filter moved to the source\nout = ")),
    ("the same line changed differently: refused", A_FILTERED, A_OTHER, None),
    ("two changes apart in one line: both, by character", BASE.replace("join(b,", "join(b.filter(F.col('y') < 2),"),
     A_FILTERED, A_FILTERED.replace("join(b,", "join(b.filter(F.col('y') < 2),")),
    ("a line inserted where the other inserts another: refused",
     BASE.replace("out = ", "x = 1\nout = "), BASE.replace("out = ", "y = 2\nout = "), None),
]


@pytest.mark.parametrize("ours, theirs, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_merged(ours, theirs, expected):
    assert merged(BASE, ours, theirs) == expected


def _suggestion(source: str, rewritten: str) -> Suggestion:
    return Suggestion(source, "p", "superset", (), (CellChange(3, BASE, rewritten),), 0, {})


def test_two_suggestions_rewriting_different_lines_of_one_cell_are_both_applied():
    result = OptimizeResult((_suggestion("a", A_FILTERED), _suggestion("b", B_FILTERED)), 0.1)
    changes, skipped = cell_changes(result)
    assert skipped == []
    assert "filter(F.col('x') > 1)" in changes[3] and "filter(F.col('y') < 2)" in changes[3]


def test_a_suggestion_changing_a_line_another_changed_is_skipped_and_said():
    result = OptimizeResult((_suggestion("a", A_FILTERED), _suggestion("a", A_OTHER)), 0.1)
    changes, skipped = cell_changes(result)
    assert changes == {3: A_FILTERED}
    assert skipped == ["not applied (it changes lines of a cell another suggestion changed): filter on a"]
