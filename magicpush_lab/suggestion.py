"""Suggestions: what the engine hands to the server, the CLI, `%magicpush` and the UI.

`Suggestion.to_json()` is the JSON contract documented in docs/architecture.md;
keep the two in step.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any


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
    # which conjuncts Spark hands to the source's file scan (measure.scan_filters); None: not looked at
    scan_filters: dict[str, Any] | None = None

    def measured(self, rows_before: int, rows_after: int, estimated: bool = False) -> "Suggestion":
        reduction = 1.0 - rows_after / rows_before if rows_before else 0.0
        return replace(self, rows_before=rows_before, rows_after=rows_after,
                       row_reduction=round(reduction, 6), estimated=estimated)

    def with_scan_filters(self, scan_filters: dict[str, Any] | None) -> "Suggestion":
        return replace(self, scan_filters=scan_filters)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
