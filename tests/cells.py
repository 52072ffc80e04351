"""Running notebook cells under the tracer, as a notebook's kernel runs them: stored in history
(so each run is an execution the trace sees) and labelled with the cell's id when it has one."""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence


def run_cell(ip: Any, source: str, cell_id: str | None = None) -> int:
    """Run one cell; returns its execution count. Fails the test if the cell raised."""
    count = ip.execution_count
    kwargs = {"cell_id": cell_id} if cell_id is not None else {}
    ip.run_cell(source, store_history=True, **kwargs).raise_error()
    return count


def run_cells(ip: Any, sources: Sequence[str], ids: Sequence[str | None] | None = None) -> list[int]:
    """Run cells in order; their execution counts."""
    return [run_cell(ip, src, cell_id) for src, cell_id in zip(sources, ids or [None] * len(sources))]


def traced(shell: tuple[Any, Any], sources: Sequence[str], ids: Sequence[str | None] | None = None) -> Any:
    """Run cells in the `shell` fixture's traced shell; the tracer's trace after them."""
    ip, tracer = shell
    run_cells(ip, sources, ids)
    return tracer.trace()


def rewritten(cells: Sequence[str], change: Any) -> list[str]:
    """`cells` with a suggestion's (or a joint rewrite's) changed cells put in."""
    new = list(cells)
    for c in change.cells:
        new[c.index] = c.rewritten
    return new


def rows_of(spark: Any, cells: Sequence[str], names: Sequence[str]) -> dict[str, list]:
    """Run `cells` in a fresh namespace holding `spark`; each named DataFrame's rows, sorted."""
    ns: dict[str, Any] = {"spark": spark}
    for src in cells:
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - running notebook cells under test
    return {n: sorted(ns[n].collect(), key=repr) for n in names if n in ns}


def out_bag(spark: Any, cells: Sequence[str], name: str = "out") -> Counter:
    """Run `cells` in a fresh namespace holding `spark`; DataFrame `name`'s rows as a bag."""
    ns: dict[str, Any] = {"spark": spark}
    for src in cells:
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - running notebook cells under test
    return Counter(map(tuple, ns[name].collect()))
