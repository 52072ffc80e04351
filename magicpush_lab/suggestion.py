"""The JSON contract: what the engine hands to the server, the CLI, `%magicpush` and the UI.

`OptimizeResult.to_json()` (with each `Suggestion.to_json()` and the walk's refusals as
`refusal_json` writes them) is the contract documented in docs/architecture.md; keep the two
in step. `src/tokens.ts` mirrors it for the front end (tests/test_contract.py checks).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Sequence

from magicpush_lab.pushdown.records import Refusal


#: what a proof category checks, in plain words (the paper's category names follow them)
CATEGORY_WORDS = {
    "ROW-TO-ROW": "row by row",
    "AGGREGATE": "group by group",
    "LEFTOUTERJ": "row by row, unmatched rows included",
    "FULLOUTERJ": "row by row, unmatched rows of both sides included",
    "ROW-EXPAND": "each row with the rows it expands to",
    "TOPK": "across the sort's cut-off",
    "SUBPIPELINE": "group by group, inside the function",
    "ROW-ITER-PIPELINE": "over the loop's rows, by induction",
    "ROW-ITER": "over the loop's rows, by induction",
}

#: what a suggestion does with the late filter, in plain words (its kind follows them)
KIND_WORDS = {"equivalent": "removed", "superset": "kept"}


@dataclass(frozen=True)
class ProofStep:
    """One operator the predicate was pushed through, and how that step was proved."""

    operator: str  # the paper's operator name: Filter, RowTransform, DropColumn, InnerJoin, ...
    category: str  # ROW-TO-ROW, AGGREGATE, ...
    base_case_rows: int  # rows per input table of the symbolic base case
    kind: str  # "equivalent" | "superset"


@dataclass(frozen=True)
class CellChange:
    index: int  # position of the cell in the notebook (markdown cells count)
    original: str
    rewritten: str
    # the count of the cell's last traced execution, which its prompt shows ("[3]"): how the user
    # names the cell (cellref.cell_ref); None when the trace has no run of it
    execution_count: int | None = None


@dataclass(frozen=True)
class Suggestion:
    source: str  # variable holding the source DataFrame
    predicate: str  # PySpark Column code of G
    kind: str  # "equivalent" (late filter removed) | "superset" (late filter kept)
    proof: tuple[ProofStep, ...]
    cells: tuple[CellChange, ...]
    source_event: int  # trace event that created the source DataFrame
    predicate_ir: dict[str, Any]  # G as IR JSON, for measuring it on the live session
    rows_before: int | None = None
    rows_after: int | None = None
    row_reduction: float | None = None
    estimated: bool = False
    may_hide_errors: bool = False  # the original can raise on a row the rewrite filters out first
    # other proved superset predicates for the same source, none implying another: which keeps
    # fewer rows depends on the data, so a live session ranks them (rank_by_rows_kept)
    alternatives: tuple["Suggestion", ...] = ()
    ranked: str | None = None  # how the predicate was chosen among the alternatives, once measured
    # which conjuncts Spark hands to the source's file scan (measure.scan_filters); None: not looked at
    scan_filters: dict[str, Any] | None = None
    # the pipeline the suggestion is for, named by the variable holding its last DataFrame
    pipeline: str | None = None
    late_filter_event: int | None = None  # trace event of the filter the predicate comes from
    # notebook position of the cell holding the late filter (where an inline banner goes); None:
    # the filter's code is not in the notebook as it ran
    late_filter_cell: int | None = None
    sink_event: int | None = None  # trace event of the pipeline's last DataFrame
    # the late filter(s) the predicate stands in for, as PySpark code: what the plain-words "Why"
    # relates the predicate to (plain_relation); None when it has no PySpark form
    late_predicate: str | None = None
    # the late filter is pandas code after toPandas() (late_predicate holds it): the rewritten
    # DataFrame holds fewer rows than the original by design, and pandas keeps the same ones
    late_filter_in_pandas: bool = False
    # an estimate of the time the rewrite saves per run of the pipeline, from the measured rows
    # and the pipeline's per-row cost timed on a sample of the source (estimated_saving)
    time_saved: dict[str, Any] | None = None

    def measured(self, rows_before: int, rows_after: int, estimated: bool = False) -> "Suggestion":
        reduction = 1.0 - rows_after / rows_before if rows_before else 0.0
        return replace(self, rows_before=rows_before, rows_after=rows_after,
                       row_reduction=round(reduction, 6), estimated=estimated)

    def with_time_saved(self, cost: dict[str, Any]) -> "Suggestion":
        """With the estimate of the time saved, from the kernel's per-row cost (runtime.per_row_cost).

        >>> s = Suggestion("t", "x > 1", "superset", (), (), 0, {}).measured(1_000_000, 50_000)
        >>> s.with_time_saved({"seconds_per_row": 2e-05, "sample_rows": 50000, "small_rows": 10000}).time_saved
        {'seconds': 19.0, 'seconds_per_row': 2e-05, 'sample_rows': 50000, 'small_rows': 10000, 'rows_removed': 950000}
        >>> s.with_time_saved({"note": "no rows"}).time_saved
        {'seconds': None, 'note': 'no rows'}
        """
        per_row = cost.get("seconds_per_row")
        if not isinstance(per_row, (int, float)) or self.rows_before is None or self.rows_after is None:
            return replace(self, time_saved={"seconds": None, "note": str(cost.get("note") or "not timed")})
        removed = max(self.rows_before - self.rows_after, 0)
        return replace(self, time_saved={"seconds": round(removed * per_row, 3), "seconds_per_row": per_row,
                                         "sample_rows": cost.get("sample_rows"), "small_rows": cost.get("small_rows"),
                                         "rows_removed": removed})

    def with_scan_filters(self, scan_filters: dict[str, Any] | None) -> "Suggestion":
        return replace(self, scan_filters=scan_filters)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> "Suggestion":
        """The suggestion `to_json` gave (what a client sends back to have it measured).

        >>> s = Suggestion("t", "x > 1", "superset", (ProofStep("Filter", "ROW-TO-ROW", 1, "superset"),),
        ...                (CellChange(0, "a", "b"),), 3, {"kind": "Lit"})
        >>> Suggestion.from_json(s.to_json()) == s
        True
        """
        if not isinstance(data, dict):
            raise ValueError("a suggestion must be an object")
        known = {f.name for f in fields(Suggestion)}
        missing = {"source", "predicate", "kind", "proof", "cells", "source_event", "predicate_ir"} - set(data)
        if missing:
            raise ValueError(f"a suggestion lacks {', '.join(sorted(missing))}")
        try:
            values = {k: v for k, v in data.items() if k in known}
            values["proof"] = tuple(ProofStep(**p) for p in data["proof"])
            values["cells"] = tuple(CellChange(**c) for c in data["cells"])
            values["alternatives"] = tuple(Suggestion.from_json(a) for a in data.get("alternatives") or ())
            return Suggestion(**values)
        except TypeError as err:
            raise ValueError(f"a suggestion is malformed: {err}") from None


@dataclass(frozen=True)
class Together:
    """All proved pushes of one pipeline applied as one rewrite, as the engine proved them jointly.

    Suggestions of one pipeline are each proved alone; applying two of them one after the other
    is not what was proved when one removes the late filter and another only adds a superset
    filter, and two that rewrite the same cell would overwrite each other. This is the rewrite
    that is proved: every filter added, and the late filter removed only if all are equivalent.
    """

    pipeline: str
    kind: str  # "equivalent" | "superset", for the whole rewrite
    cells: tuple[CellChange, ...]
    suggestions: int  # how many suggestions it combines

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def best_index(rows_kept: list[int | None]) -> int:
    """The option keeping the fewest rows; on a tie, the first (the search's order).

    >>> best_index([40, 12, 12, None])
    1
    """
    return min((n, i) for i, n in enumerate(rows_kept) if n is not None)[1]


def rank_by_rows_kept(s: Suggestion, rows_after: list[int | None], basis: str) -> Suggestion:
    """`s` with the alternative that keeps the fewest rows as its predicate. `rows_after` holds
    the rows each of `s` and its alternatives keeps (None: not measured), in that order;
    `basis` says what was counted ("a sample of 10,000 rows", say). Ties keep the order the
    search gave (fewer literals first).

    >>> a = Suggestion("t", "x > 1", "superset", (), (), 0, {})
    >>> b = replace(a, predicate="y > 1")
    >>> r = rank_by_rows_kept(replace(a, alternatives=(b,)), [40, 12], "a sample")
    >>> r.predicate, [x.predicate for x in r.alternatives], r.ranked
    ('y > 1', ['x > 1'], 'keeps 12 rows of a sample; the alternative keeps 40')
    """
    options = [replace(s, alternatives=()), *s.alternatives]
    measured = [(n, i) for i, n in enumerate(rows_after) if n is not None and i < len(options)]
    if len(measured) < 2:
        return s
    best = best_index(rows_after[:len(options)])
    best_rows = rows_after[best]
    others = sorted(n for n, i in measured if i != best)
    chosen = options[best]
    alts = "the alternative keeps" if len(others) == 1 else f"the {len(others)} alternatives keep"
    ranked = f"keeps {best_rows:,} rows of {basis}; {alts} {', '.join(f'{n:,}' for n in others)}"
    return replace(chosen, alternatives=tuple(o for i, o in enumerate(options) if i != best), ranked=ranked)


@dataclass(frozen=True)
class OptimizeResult:
    suggestions: tuple[Suggestion, ...]
    optimizer_seconds: float
    notes: tuple[str, ...] = ()  # why something was not pushed, for display
    # per pipeline with several suggestions: all of them as the one rewrite proved jointly
    together: tuple[Together, ...] = ()
    # what was not pushed, structured: {pipeline, operator, reason, candidate, counterexample}
    refusals: tuple[dict[str, Any], ...] = ()
    # each optimized pipeline as a graph of its calls (pipeline_graph.graph)
    pipelines: tuple[dict[str, Any], ...] = ()
    # why a suggestion has no row counts (assist.optimize_and_measure); never measurements
    measure_errors: tuple[str, ...] = ()

    def to_json(self, notebook: str | None = None) -> dict[str, Any]:
        return {
            "notebook": notebook,
            "suggestions": [s.to_json() for s in self.suggestions],
            "together": [t.to_json() for t in self.together],
            "refusals": list(self.refusals),
            "pipelines": list(self.pipelines),
            "optimizer_seconds": round(self.optimizer_seconds, 4),
            "notes": list(self.notes),
            "measure_errors": list(self.measure_errors),
        }


def refusal_json(r: Refusal, pipeline: str, note: str | None = None) -> dict[str, Any]:
    """A refusal for the JSON result: counterexample rows with plain JSON values, the trace
    event of the step that stopped the filter, and the note that describes that step (one of
    the result's notes: a view shows it once, with the refusal).

    >>> refusal_json(Refusal("GroupBy", "no candidate", "x > 1", {"input 1": [{"x": 1.5, "d": object}]}), "out")
    {'pipeline': 'out', 'operator': 'GroupBy', 'reason': 'no candidate', 'candidate': 'x > 1', 'counterexample': {'input 1': [{'x': 1.5, 'd': "<class 'object'>"}]}, 'event': None, 'note': None}
    """
    def plain(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return str(v)  # JSON has no NaN or infinity
        return v if v is None or isinstance(v, (bool, int, float, str)) else str(v)

    tables = {str(name): [{str(k): plain(v) for k, v in row.items()} for row in rows]
              for name, rows in (r.counterexample or {}).items()}
    return {"pipeline": pipeline, "operator": r.operator, "reason": r.reason, "candidate": r.candidate,
            "counterexample": tables, "event": r.event, "note": note}


def describe_refusal(r: Refusal, step: str | None = None, reasons: Sequence[str] = ()) -> str:
    """A refusal as one line of the notes: the operator, the user's code of that step when
    known, and every reason the step gave (`reasons`; else the refusal's own).

    >>> describe_refusal(Refusal("GroupBy", "no candidate could be proved"), "`df.groupBy('k')` (cell [4], line 2)")
    "GroupBy `df.groupBy('k')` (cell [4], line 2): no filter before this step was proved to give the same result (no candidate could be proved)"
    """
    text = f"{r.operator}{' ' + step if step else ''}: {'; '.join(_plain(x) for x in reasons or (r.reason,))}"
    if r.candidate and r.counterexample:
        text += f" (`{r.candidate}` at the source would change the result on {_tables(r.counterexample)})"
    elif r.candidate:
        text += f" (`{r.candidate}`)"
    return text


#: the walk's reasons that are terms of the proof, in plain words (the term follows them)
PLAIN_REASONS = {"no candidate could be proved": "no filter before this step was proved to give the same result"}


def _plain(reason: str) -> str:
    return f"{PLAIN_REASONS[reason]} ({reason})" if reason in PLAIN_REASONS else reason


def _tables(tables: dict[str, list[dict]]) -> str:
    """Counterexample tables in one line; runs of equal rows (a limit's k copies) counted once.

    >>> _tables({"input 1": [{"x": 1}] * 3 + [{"x": None}]})
    "input 1: 3 x {'x': 1}, {'x': None}"
    """
    parts = []
    for name, rows in tables.items():
        runs: list[list] = []
        for row in rows:
            if runs and runs[-1][1] == row:
                runs[-1][0] += 1
            else:
                runs.append([1, row])
        shown = ", ".join(f"{n} x {row}" if n > 1 else str(row) for n, row in runs)
        parts.append(f"{name}: {shown or 'empty'}")
    return "; ".join(parts)
