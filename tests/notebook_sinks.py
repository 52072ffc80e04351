"""The output bags of every sink of a notebook, to compare a notebook before and after a rewrite.

A sink is what the notebook's reader sees or keeps: each DataFrame an action ran on (`show()`,
`collect()`, `toPandas()`, `count()`, ... in the order they ran, a plot's data included) and each
DataFrame variable nothing else was built from. Both runs are untraced, each in a namespace of
its own, on the same SparkSession. A rewrite is sound for the notebook when every sink of the
original has the same bag of rows in the rewritten notebook.
"""

from __future__ import annotations

import math
from collections import Counter
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

ACTIONS = ("show", "collect", "toPandas", "count", "take", "head", "first", "toLocalIterator")


@contextmanager
def recorded_actions(seen: list[tuple[str, Counter]]) -> Iterator[None]:
    """Each action on a DataFrame while the block runs appends (action, the frame's whole bag)."""
    from pyspark.sql import DataFrame

    classes = [DataFrame]
    for cls in classes:  # the classic and the Connect DataFrame define their own actions
        classes += [c for c in cls.__subclasses__() if c not in classes]
    originals = {(cls, name): cls.__dict__[name] for cls in classes for name in ACTIONS if name in cls.__dict__}
    depth = [0]

    def wrap(name: str, method: Any) -> Any:
        def recording(self: Any, *args: Any, **kwargs: Any) -> Any:
            if depth[0] == 0:  # toPandas may collect: one action is one sink
                depth[0] += 1
                try:
                    seen.append((name, bag(self.collect())))
                finally:
                    depth[0] -= 1
            depth[0] += 1
            try:
                return method(self, *args, **kwargs)
            finally:
                depth[0] -= 1
        return recording

    for (cls, name), method in originals.items():
        setattr(cls, name, wrap(name, method))
    try:
        yield
    finally:
        for (cls, name), method in originals.items():
            setattr(cls, name, method)


def bag(rows: Sequence[Any]) -> Counter:
    """Rows as a multiset; NaN counted as one value (NaN != NaN would make no two bags equal)."""
    def canon(v: Any) -> Any:
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        if isinstance(v, (list, tuple)):
            return tuple(canon(x) for x in v)
        if isinstance(v, dict):
            return tuple(sorted((k, canon(x)) for k, x in v.items()))
        return v

    return Counter(tuple(canon(v) for v in row) for row in rows)


def run_untraced(spark: Any, cells: Sequence[str]) -> tuple[dict[str, Any], list[tuple[str, Counter]]]:
    """Run `cells` in a fresh namespace; the namespace and the actions' bags, in order."""
    import matplotlib

    matplotlib.use("Agg")  # a notebook's plot, drawn nowhere
    ns: dict[str, Any] = {"spark": spark}
    seen: list[tuple[str, Counter]] = []
    with recorded_actions(seen):
        for src in cells:
            exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - the notebook under test
    return ns, seen


def sink_variables(trace: Any) -> list[str]:
    """The variables holding a DataFrame nothing else in the trace was built from."""
    consumers = trace.consumers()
    return sorted(name for name, eid in trace.variables.items() if not consumers.get(eid))


def sink_bags(spark: Any, cells: Sequence[str], variables: Sequence[str]) -> dict[str, Any]:
    """Every sink's bag: 'action N: show' for the N-th action, and each of `variables`."""
    ns, seen = run_untraced(spark, cells)
    bags: dict[str, Any] = {f"action {i}: {name}": bag for i, (name, bag) in enumerate(seen)}
    for name in variables:
        bags[name] = bag(ns[name].collect())
    return bags


def rewritten(cells: Sequence[str], changes: Sequence[Any]) -> list[str]:
    """The cells with a suggestion's (or joint rewrite's) cell changes applied."""
    new = list(cells)
    for change in changes:
        assert new[change.index] == change.original, "a change must apply to the cell it was made for"
        new[change.index] = change.rewritten
    return new
