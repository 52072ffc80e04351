"""Running a pipeline on Spark and reading what it did: rows at each source, wall time, rows out.

"Rows read at a source" is the number of rows a Parquet table hands to the rest of the
query: the `number of output rows` SQL metric of the Filter right above the table's scan
(through `ColumnarToRow`), or of the scan itself when no filter sits there. That counts the
effect of every predicate at the read, Spark's own and a pushed one alike, whether Parquet
uses it to skip row groups or Spark applies it right after the scan. The figures come from
the executed plan of the run itself (the final plan under adaptive execution), so nothing is
counted twice; a table scanned several times has its scans summed.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

_PASS_THROUGH = ("ColumnarToRow", "InputAdapter", "WholeStageCodegen")


@dataclass
class Run:
    """One variant of a pipeline: rows read per table, wall times, its rows."""

    rows_read: dict[str, int] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    rows: list = field(default_factory=list)

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None

    @property
    def total_read(self) -> int:
        return sum(self.rows_read.values())


def _seq(s) -> list:
    return [s.apply(i) for i in range(s.size())]


def _children(node) -> list:
    name = node.getClass().getSimpleName()
    if name == "AdaptiveSparkPlanExec":
        return [node.executedPlan()]
    if name.endswith("QueryStageExec"):
        return [node.plan()]
    return _seq(node.children())


def _is_scan(node) -> bool:
    return node.getClass().getSimpleName() == "FileSourceScanExec"


def _metric(node, name: str = "numOutputRows") -> int:
    metrics = node.metrics()
    return int(metrics.apply(name).value()) if metrics.contains(name) else -1


def _scan_below(node):
    """The scan under a Filter, through nodes that pass rows unchanged (None when another
    operator is in between)."""
    while True:
        kids = _children(node)
        if len(kids) != 1:
            return None
        node = kids[0]
        if _is_scan(node):
            return node
        if not any(node.getClass().getSimpleName().startswith(p) for p in _PASS_THROUGH):
            return None


def source_rows(executed_plan, table_of: Callable[[str], str | None]) -> dict[str, int]:
    """Rows read at each table (module docstring), from an executed physical plan; `table_of`
    names the table of a scan's root path (None: not one of ours, left out)."""
    found: dict[str, int] = {}

    def visit(node) -> None:
        scan = _scan_below(node) if node.getClass().getSimpleName() == "FilterExec" else None
        if scan is None and _is_scan(node):
            scan = node
        if scan is not None:
            root = _seq(scan.relation().location().rootPaths())
            table = table_of(str(root[0])) if root else None
            if table is not None:
                found[table] = found.get(table, 0) + _metric(node)
            return
        for kid in _children(node):
            visit(kid)

    visit(executed_plan)
    return found


def table_namer(paths: dict[str, Path]) -> Callable[[str], str | None]:
    """A scan's root path -> the name of the table written there."""
    ends = {Path(p).name: name for name, p in paths.items()}

    def name_of(root: str) -> str | None:
        return ends.get(root.rstrip("/").rsplit("/", 1)[-1])

    return name_of


def _once(build: Callable, table_of) -> tuple[float, list, dict[str, int]]:
    df = build()  # a fresh plan each time, so the metrics are one run's
    started = time.perf_counter()
    rows = df.collect()
    seconds = time.perf_counter() - started
    return seconds, rows, source_rows(df._jdf.queryExecution().executedPlan(), table_of)


def measure(build: Callable, runs: int, table_of: Callable[[str], str | None]) -> Run:
    """`runs` timed runs; the first also gives the rows and the rows read (with `runs` 0, one
    untimed run for those)."""
    return measure_alternating({"one": build}, runs, table_of)["one"]


def measure_alternating(builds: dict[str, Callable], runs: int, table_of) -> dict[str, Run]:
    """`measure` for several variants, their runs interleaved and the order reversed every
    other round, so neither a slow spell of a shared machine nor the cache the first run
    warms favours one variant."""
    out = {name: Run() for name in builds}
    order = list(builds)
    for i in range(max(1, runs)):
        for name in (order if i % 2 == 0 else order[::-1]):
            seconds, rows, read = _once(builds[name], table_of)
            if runs:
                out[name].seconds.append(seconds)
            if i == 0:
                out[name].rows, out[name].rows_read = rows, read
    return out
