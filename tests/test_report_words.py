"""What the CLI's report and `%magicpush` say, in the user's words: plain words first and the
paper's terms after, cells as their prompts show them, the time saving labelled an estimate,
and why nothing moved."""

from __future__ import annotations

import pytest

from magicpush_lab.kernel.report import render
from magicpush_lab.suggestion import CellChange, OptimizeResult, ProofStep, Suggestion

STEP = ProofStep("RowTransform", "ROW-TO-ROW", 1, "equivalent")


def _suggestion(kind: str) -> Suggestion:
    cells = (CellChange(1, "df = read()", "df = read().filter(c)", 3), CellChange(4, "out = x", "out = y", 7))
    return Suggestion("orders", 'F.col("amount") > 950', kind, (STEP,), cells, 0, {}, pipeline="out") \
        .measured(1_000_000, 49_000).with_time_saved({"seconds_per_row": 2e-05, "sample_rows": 10_000})


@pytest.mark.parametrize("kind, words", [
    ("equivalent", "removed (equivalent)"),
    ("superset", "kept (superset)"),
])
def test_a_suggestion_reads_in_plain_words_first(kind, words):
    text = render(OptimizeResult((_suggestion(kind),), 0.5))["text/plain"]
    assert words in text
    assert "RowTransform: row by row (ROW-TO-ROW, 1 row)" in text  # the paper's terms after
    assert "1,000,000 -> 49,000" in text
    assert "~19 s (estimate)" in text
    assert "[3] and [7]" in text  # the cells as their prompts show them, not positions 2 and 5


@pytest.mark.parametrize("kind, late, in_pandas, why", [
    ("equivalent", 'F.col("points") > 1000', False,
     "why 1: `points > 1000` holds exactly when `amount > 950` does, for every row of `orders`: "
     "filtering `orders` by `amount > 950` keeps the same rows, and the late filter goes."),
    ("superset", 'F.col("points") > 1000', False,
     "why 1: Every row kept by `points > 1000` has `amount > 950` at `orders`, so filtering there first "
     "loses none of them; the late filter stays to drop the rest."),
    ("superset", None, False, "why 1: Every row kept by the late filter has `amount > 950` at `orders`"),
    ("superset", "top[top.points > 1000]", True,
     "why 1: Every row the pandas code `top[top.points > 1000]` keeps has `amount > 950` at `orders`, so "
     "filtering there first moves fewer rows into Python and loses none of them; the pandas filter stays."),
])
def test_why_says_the_pushed_filter_s_relation_to_the_late_one(kind, late, in_pandas, why):
    import dataclasses

    s = dataclasses.replace(_suggestion(kind), late_predicate=late, late_filter_in_pandas=in_pandas)
    assert why in render(OptimizeResult((s,), 0.5))["text/plain"]
    assert "why 1: " in render(OptimizeResult((s,), 0.5))["text/html"]


def test_no_time_estimate_says_why():
    s = _suggestion("superset").with_time_saved({"note": "the source has only 50 rows, too few to tell"})
    text = render(OptimizeResult((s,), 0.5))["text/plain"]
    assert "time saved 1: no estimate: the source has only 50 rows, too few to tell" in text
    assert "time saved 1:" not in render(OptimizeResult((_suggestion("superset"),), 0.5))["text/plain"]


@pytest.mark.parametrize("notes, said", [
    (("TopK `df.limit(3)` (cell [2], line 1): no filter before this step was proved to give the same result",),
     "MagicPush: no filter can move to a source; the notes say which step stops it."),
    ((), "MagicPush: no filter can move to a source."),
])
def test_nothing_pushed_says_so_once_and_the_notes_say_why(notes, said):
    text = render(OptimizeResult((), 0.5, notes))["text/plain"]
    assert text.splitlines()[0] == said
    assert all(text.count(n) == 1 for n in notes)


def test_already_applied_with_notes_renders_in_both_forms():
    # a result with nothing new to offer because a filter is already in place, and a note: the
    # html form once failed here (no markup was started for this case)
    applied = ({"pipeline": "out", "event": 1, "predicate": 'F.col("v") > 5', "step": "df.filter(...)",
                "note": "already in place"},)
    shown = render(OptimizeResult((), 0.5, ("a note",), already_applied=applied))
    assert shown["text/plain"].startswith("MagicPush: already applied")
    assert "already applied" in shown["text/html"] and "<li>a note</li>" in shown["text/html"]
