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


@pytest.mark.parametrize("notes, said", [
    (("TopK `df.limit(3)` (cell [2], line 1): no filter before this step was proved to give the same result",),
     "MagicPush: no filter can move to a source; the notes say which step stops it."),
    ((), "MagicPush: no filter can move to a source."),
])
def test_nothing_pushed_says_so_once_and_the_notes_say_why(notes, said):
    text = render(OptimizeResult((), 0.5, notes))["text/plain"]
    assert text.splitlines()[0] == said
    assert all(text.count(n) == 1 for n in notes)
