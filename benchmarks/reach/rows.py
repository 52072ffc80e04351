"""Rows a table's read hands on in an executed query, Spark's own filters at the read included.

Per file scan of the table's directory: the `numOutputRows` metric of the topmost Filter
directly above the scan (through ColumnarToRow, InputAdapter, WholeStageCodegen, Project and
further Filters, which pass rows on or remove them but add none), else the scan's own. That
counts every predicate applied at the read, Spark's pushed filters and one the rewrite put
there alike, whether Parquet skipped row groups with it or Spark applied it after the scan.
Reads of the same table are summed. The plan is the executed one: under adaptive execution
its final plan, through query stages; a cached relation is counted through its cached plan
(whose metrics are those of the run that filled the cache). A reused exchange is not walked
again, so a shared scan counts once.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

_PASS_ON = ("ColumnarToRow", "InputAdapter", "WholeStageCodegen", "ProjectExec", "FilterExec")


def _seq(s: Any) -> list:
    return [s.apply(i) for i in range(s.size())]


def _name(node: Any) -> str:
    return node.getClass().getSimpleName()


def _children(node: Any) -> list:
    name = _name(node)
    if name == "AdaptiveSparkPlanExec":
        return [node.executedPlan()]
    if name.endswith("QueryStageExec"):
        return [node.plan()]
    if name == "InMemoryTableScanExec":
        return [node.relation().cachedPlan()]
    return _seq(node.children())


def _is_scan(node: Any) -> bool:
    return _name(node) == "FileSourceScanExec"


def _rows_out(node: Any) -> int:
    metrics = node.metrics()
    return int(metrics.apply("numOutputRows").value()) if metrics.contains("numOutputRows") else 0


def _scan_under(node: Any) -> Any | None:
    """The file scan below a Filter through operators that pass rows on, or None."""
    while True:
        kids = _children(node)
        if len(kids) != 1:
            return None
        node = kids[0]
        if _is_scan(node):
            return node
        if not _name(node).startswith(_PASS_ON):
            return None


def _table_of(scan: Any) -> str:
    roots = _seq(scan.relation().location().rootPaths())
    return PurePosixPath(str(roots[0]).rstrip("/")).name if roots else ""


def rows_handed_on(executed_plan: Any, tables: set[str]) -> dict[str, int]:
    """Table -> rows its reads handed on (module docstring); a table whose directory name is
    not in `tables` is left out, one that was not read is absent."""
    found: dict[str, int] = {}

    def visit(node: Any) -> None:
        scan = _scan_under(node) if _name(node) == "FilterExec" else None
        if scan is None and _is_scan(node):
            scan = node
        if scan is not None:
            table = _table_of(scan)
            if table in tables:
                found[table] = found.get(table, 0) + _rows_out(node)
            return
        for kid in _children(node):
            visit(kid)

    visit(executed_plan)
    return found


def executed_plan(df: Any) -> Any:
    """The physical plan a DataFrame's last action ran (classic PySpark)."""
    return df._jdf.queryExecution().executedPlan()
