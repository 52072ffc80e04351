"""The JSON contract: what the engine hands to the server, the CLI, `%magicpush` and the UI.

`OptimizeResult.to_json()` (with each `Suggestion.to_json()` and the walk's refusals as
rewrite/notes.py's `refusal_json` writes them) is the contract documented in
docs/architecture.md; keep the two in step. server/contract.schema.json describes it, and
`src/contract.ts`, generated from the schema, gives the front end its types
(tests/test_contract.py checks). Plain data that imports nothing of the engine's: the stage
after the walk fills it in (rewrite/assemble.py), measuring and every face read it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Sequence


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
    # the filters in it that were counted to remove no rows ("`pred` on source"): a rewrite
    # that holds one is not applied in bulk (assist.with_measurements marks it)
    no_benefit: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def removes_nothing(s: Suggestion) -> bool:
    """Counted on every row of its read (not estimated on a sample), the filter keeps them all:
    it has no benefit, whatever was proved.

    >>> s = Suggestion("df", "F.col('v') > 1", "equivalent", (), (), 0, {})
    >>> removes_nothing(s.measured(10, 10)), removes_nothing(s.measured(10, 9)), removes_nothing(s)
    (True, False, False)
    """
    return (not s.estimated and s.rows_before is not None and s.rows_before > 0
            and s.rows_after == s.rows_before)


def by_value(suggestions: Sequence[Suggestion]) -> tuple[Suggestion, ...]:
    """The suggestions most valuable first: those counted to remove rows, by the rows they
    remove (an estimate counts as its figure); then those not counted, in the search's order;
    then those that remove nothing. Stable: equal values keep their order.

    >>> s = Suggestion("t", "x > 1", "superset", (), (), 0, {})
    >>> ranked = by_value([s.measured(100, 100), replace(s, source="u"), s.measured(100, 40), s.measured(50, 1)])
    >>> [(r.source, r.rows_after) for r in ranked]
    [('t', 40), ('t', 1), ('u', None), ('t', 100)]
    """
    def key(s: Suggestion) -> tuple[int, int]:
        if removes_nothing(s):
            return (2, 0)
        if s.rows_before is None or s.rows_after is None:
            return (1, 0)
        return (0, -(s.rows_before - s.rows_after))

    return tuple(sorted(suggestions, key=key))


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
class Fold:
    """A chain of `withColumn` calls written as `withColumns` calls (rewrite/fold_columns.py):
    the same columns, values and errors, a plan nested less deep. Offered only for a chain long
    enough to near the depths Spark refuses; `reason` says so in the user's words."""

    pipeline: str | None  # the variable holding the chain's last DataFrame, if one does
    calls: int  # withColumn calls in the chain: the depth they nest the plan
    folded: int  # how many of them the rewrite folds
    with_columns: int  # the withColumns calls it writes in their place
    depth_after: int  # the chain's depth once folded
    first_event: int  # trace events of the chain's first and last call
    last_event: int
    reason: str
    cells: tuple[CellChange, ...]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


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
    # filters already in place that a pushed predicate met, so it is not offered again:
    # {pipeline, event, predicate, step, note} (rewrite/notes.already_json)
    already_applied: tuple[dict[str, Any], ...] = ()
    # conjuncts of a late filter that stay in it while others moved, each with the step that
    # stopped it: {pipeline, conjunct, operator, event, step, reason, note} (notes.left_behind_json)
    left_behind: tuple[dict[str, Any], ...] = ()
    # the trace's last cell execution raised: {execution_count, cell_id, error}; the cells
    # after it have not run (pipeline.with_failed_cell)
    failed_cell: dict[str, Any] | None = None
    # chains of withColumn calls long enough to near Spark's depth limits, folded (Fold)
    folds: tuple[Fold, ...] = ()

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
            "already_applied": list(self.already_applied),
            "left_behind": list(self.left_behind),
            "failed_cell": self.failed_cell,
            "folds": [f.to_json() for f in self.folds],
        }
