"""Suggestions for reading: an HTML table for the notebook, one block each for terminals.

>>> from magicpush_lab.suggestion import CellChange, ProofStep, Suggestion
>>> s = Suggestion("sales", 'F.col("v") > 995', "equivalent", (ProofStep("RowTransform", "ROW-TO-ROW", 1, "equivalent"),),
...                (CellChange(1, "a", "b", 3),), 0, {}, pipeline="out").measured(1000, 4)
>>> print(text_blocks([s]))
1. sales: F.col("v") > 995
   pipeline     out
   late filter  removed (equivalent)
   proved       RowTransform: row by row (ROW-TO-ROW, 1 row)
   rows         1,000 -> 4 (99.6% fewer)
   cells        [3]
>>> scan_summary(s.with_scan_filters({"scan": "Parquet", "all_pushed": True, "conjuncts": [{}]}))
'reaches the Parquet scan'
"""

from __future__ import annotations

import html
import re
from typing import Any, Sequence

from magicpush_lab.cellref import cells_ref
from magicpush_lab.suggestion import CATEGORY_WORDS, KIND_WORDS, Suggestion, removes_nothing

HEADERS = ("#", "pipeline", "source", "filter at the source", "late filter", "proved", "rows before -> after",
           "reduction", "time saved", "scan", "cells")
PREDICATE = 3  # the column shown as code


def _proof(s: Suggestion) -> str:
    """Each step in plain words first, the paper's category and base case after."""
    steps = [f"{p.operator}: {CATEGORY_WORDS.get(p.category, 'checked')} "
             f"({p.category}, {p.base_case_rows} row{'s' if p.base_case_rows != 1 else ''})" for p in s.proof]
    return "; ".join(steps) or "at the source already"


def _cells(s: Suggestion) -> str:
    """The rewritten cells as their prompts show them: "[3], [5]"."""
    if not s.cells:
        return "-"
    return cells_ref([(c.index, c.execution_count) for c in s.cells]).removeprefix("cells ").removeprefix("cell ")


def _rows(s: Suggestion) -> tuple[str, str]:
    if s.rows_before is None or s.rows_after is None:
        return "not measured", "-"
    approx = "~" if s.estimated else ""
    pct = f"{approx}{100 * (s.row_reduction or 0.0):.1f}%"
    if removes_nothing(s):
        pct = "0% (no benefit)"
    return f"{approx}{s.rows_before:,} -> {approx}{s.rows_after:,}", pct


def scan_summary(s: Suggestion) -> str:
    """Whether the predicate reaches the source's file scan (Spark's PushedFilters), in words."""
    scan = s.scan_filters
    if not scan:
        return "-"
    if not scan.get("scan"):
        return "no file scan (in-memory source)"
    conjuncts = scan.get("conjuncts") or []
    reached = sum(1 for c in conjuncts if c.get("reaches_scan"))
    if scan.get("all_pushed"):
        return f"reaches the {scan['scan']} scan"
    if reached:
        return f"{reached} of {len(conjuncts)} conjuncts reach the {scan['scan']} scan"
    return "not a scan filter: evaluated after reading"


def row(s: Suggestion, number: int = 1) -> tuple[str, ...]:
    rows, pct = _rows(s)
    return (str(number), s.pipeline or "-", s.source, s.predicate, f"{KIND_WORDS.get(s.kind, s.kind)} ({s.kind})",
            _proof(s), rows, pct, saving(s), scan_summary(s), _cells(s))


def saving(s: Suggestion) -> str:
    """The estimated time saved per run, labelled as an estimate.

    >>> from magicpush_lab.suggestion import Suggestion
    >>> s = Suggestion("t", "x > 1", "superset", (), (), 0, {}).measured(1_000_000, 50_000)
    >>> saving(s.with_time_saved({"seconds_per_row": 2e-05, "sample_rows": 10000})), saving(s)
    ('~19 s (estimate)', '-')
    """
    seconds = (s.time_saved or {}).get("seconds")
    if seconds is None:
        return "-"
    return f"~{seconds:,.0f} s (estimate)" if seconds >= 10 else f"~{seconds:.2g} s (estimate)"


def readable(code: str) -> str:
    """PySpark Column code as a user reads it: `F.col("points") > 1000` is `points > 1000`.

    >>> readable('(F.col("points") > 1000)'), readable("(a) & (b)")
    ('points > 1000', '(a) & (b)')
    """
    plain = re.sub(r"""\b\w+\.col\((["'])([A-Za-z_][A-Za-z0-9_]*)\1\)""", r"\2", code)
    inner = plain[1:-1]
    return inner if plain.startswith("(") and plain.endswith(")") and _balanced(inner) else plain


def _balanced(code: str) -> bool:
    depth = 0
    for ch in code:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def why(s: Suggestion) -> str:
    """Why the filter may move, in the user's terms: the pushed predicate's relation to the late
    filter (the sidebar's Why says the same, src/why.ts).

    >>> print(why(Suggestion("sales", 'F.col("v") > 995', "equivalent", (), (), 0, {},
    ...                      late_predicate='F.col("w") > 1000')))
    `w > 1000` holds exactly when `v > 995` does, for every row of `sales`: filtering `sales` by `v > 995` keeps the same rows, and the late filter goes.
    """
    pushed = f"`{readable(s.predicate)}`"
    late = f"`{readable(s.late_predicate)}`" if s.late_predicate else "the late filter"
    if s.late_filter_in_pandas:
        return (f"Every row the pandas code {late} keeps has {pushed} at `{s.source}`, so filtering there first "
                "moves fewer rows into Python and loses none of them; the pandas filter stays.")
    if s.kind == "equivalent":
        subject = late if late.startswith("`") else late[0].upper() + late[1:]
        return (f"{subject} holds exactly when {pushed} does, for every row of `{s.source}`: filtering "
                f"`{s.source}` by {pushed} keeps the same rows, and the late filter goes.")
    return (f"Every row kept by {late} has {pushed} at `{s.source}`, so filtering there first loses none of "
            "them; the late filter stays to drop the rest.")


def text_blocks(suggestions: Sequence[Suggestion]) -> str:
    """One block per suggestion, a field per line, as a terminal reads them (a table of every
    field runs to hundreds of columns); fields with nothing to say are left out."""
    blocks = []
    for n, s in enumerate(suggestions, 1):
        _, pipeline, source, predicate, late, proved, rows, pct, saved, scan, cells = row(s, n)
        fields = [("pipeline", pipeline), ("late filter", late), ("proved", proved),
                  ("rows", rows if pct == "-" else f"{rows} ({pct.replace('%', '% fewer', 1)})"),
                  ("time saved", saved), ("scan", scan), ("cells", cells)]
        lines = [f"{n}. {source}: {predicate}"]
        lines += [f"   {name:<12} {value}" for name, value in fields if value not in ("-", "")]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def html_table(suggestions: Sequence[Suggestion]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEADERS)
    body = "".join(
        "<tr>" + "".join(f"<td><code>{html.escape(c)}</code></td>" if i == PREDICATE else f"<td>{html.escape(c)}</td>"
                         for i, c in enumerate(row(s, n))) + "</tr>"
        for n, s in enumerate(suggestions, 1))
    return f'<table class="magicpush-suggestions"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def render(result: Any) -> dict[str, str]:
    """text/html and text/plain of an OptimizeResult, notes included."""
    if result.suggestions:
        text = text_blocks(result.suggestions)
        markup = html_table(result.suggestions)
    elif result.already_applied:
        text = "MagicPush: already applied: the filters that can move are at their sources; nothing more moves."
        markup = f"<p>{html.escape(text)}</p>"
    else:
        text = "MagicPush: no filter can move to a source" + (
            "; the notes say which step stops it." if result.notes else ".")
        markup = f"<p>{html.escape(text)}</p>"
    reasons = [f"why {n}: {why(s)}" for n, s in enumerate(result.suggestions, 1)]
    # the table's "-" under time saved, said: the sidebar gives the same reason
    reasons += [f"time saved {n}: no estimate: {s.time_saved['note']}" for n, s in enumerate(result.suggestions, 1)
                if s.time_saved and s.time_saved.get("seconds") is None and s.time_saved.get("note")]
    if reasons:
        text += "\n" + "\n".join(reasons)
        markup += "<ul>" + "".join(f"<li>{html.escape(r)}</li>" for r in reasons) + "</ul>"
    choices = [f"{s.source}: {s.predicate} chosen among {len(s.alternatives) + 1} proved predicates; {s.ranked}"
               for s in result.suggestions if s.ranked]
    if choices:
        text += "\n" + "\n".join(f"ranked: {c}" for c in choices)
        markup += "<ul>" + "".join(f"<li>{html.escape(c)}</li>" for c in choices) + "</ul>"
    folds = [fold_line(f) for f in getattr(result, "folds", ())]
    if folds:
        text += "\n" + "\n".join(folds)
        markup += "<ul>" + "".join(f"<li>{html.escape(f)}</li>" for f in folds) + "</ul>"
    notes = [*result.notes, *result.measure_errors]
    if notes:
        text += "\n" + "\n".join(f"note: {n}" for n in notes)
        markup += "<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>"
    text += f"\n(optimizer: {result.optimizer_seconds:.2f}s)"
    return {"text/html": markup, "text/plain": text}


def fold_line(fold: Any) -> str:
    """A withColumn chain's fold in one line: what it changes, why, and where.

    >>> from magicpush_lab.suggestion import CellChange, Fold
    >>> fold_line(Fold("out", 600, 600, 1, 1, 3, 602, "600 calls nest the plan 600 deep", (CellChange(1, "a", "b", 2),)))
    'fold: 600 withColumn calls of out into 1 withColumns (cell [2]): 600 calls nest the plan 600 deep'
    """
    of = f" of {fold.pipeline}" if fold.pipeline else ""
    where = cells_ref([(c.index, c.execution_count) for c in fold.cells])
    return f"fold: {fold.folded} withColumn calls{of} into {fold.with_columns} withColumns ({where}): {fold.reason}"


def render_error(message: str) -> dict[str, str]:
    return {"text/html": f'<p class="magicpush-error"><b>MagicPush:</b> {html.escape(message)}</p>',
            "text/plain": f"MagicPush: {message}"}
