"""The traced pipeline as a small graph for the sidebar: the calls a pipeline's last DataFrame
was built from, each with what the engine makes of it, and where filters are and will be.

>>> from magicpush_lab.capture.trace import Event
>>> t = Trace(events=(Event(1, "read.parquet", (), "[]"), Event(2, "withColumn", (1,), "[]"),
...                   Event(3, "filter", (2,), "[]")), variables={"sales": 1, "out": 3})
>>> [(n["id"], n["label"], n["inputs"]) for n in graph(t, 3, "out")["nodes"]]
[(1, 'sales', []), (2, 'withColumn', [1]), (3, 'out', [2])]
"""

from __future__ import annotations

from typing import Any

from magicpush_lab.capture.trace import Trace
from magicpush_lab.ir import plan as P
from magicpush_lab.translate.coverage import COVERAGE


def what_it_is(op: str) -> str:
    """The coverage table's entry for a traced call: its operator, or why it is a barrier.

    >>> what_it_is("filter"), what_it_is("read.parquet")
    ('Filter', 'source')
    """
    method = op.split(".")[-1]
    if op.startswith(("read.", "readStream.")) or op in ("createDataFrame", "range", "table", "sql"):
        return "source"
    return COVERAGE["DataFrame"].get(method) or COVERAGE["GroupedData"].get(method) or ""


def step_text(node: P.Plan) -> str:
    """What the engine made of one call, from its own operator: a four-key groupBy is a GroupBy
    on its four keys, not the coverage table's every form of `agg`.

    >>> from magicpush_lab.ir import expr as X
    >>> k, v = X.Col("k", 1, "string"), X.Col("v", 2, "int")
    >>> src = P.Source("t", (k, v))
    >>> step_text(P.Aggregate(src, (k,), ((v, X.Agg("sum", (v,), "long")),)))
    'GroupBy on k'
    >>> step_text(P.Aggregate(src, (), ((v, X.Agg("sum", (v,), "long")),)))
    'GroupBy (no keys)'
    >>> step_text(P.Other((src,), (k,), "a Python UDF table function"))
    'barrier: a Python UDF table function'
    """
    if isinstance(node, P.Other):
        return f"barrier: {node.reason}"
    if isinstance(node, P.Source):
        return "source"
    name = P.operator_name(node)
    if isinstance(node, P.Aggregate):
        keys = ", ".join(str(k) for k in node.keys)
        return f"{name} on {keys}" if keys else f"{name} (no keys)"
    return name


def _own_steps(plan: P.Plan | None) -> dict[int, str]:
    """Each traced call's operator in `plan`, by event id; of the nodes one call made, the first
    that is not a projection (Spark puts one around a join on names, say)."""
    found: dict[int, P.Plan] = {}
    for node in P.nodes(plan) if plan is not None else ():
        origin = getattr(node, "origin", None)
        if origin is None:
            continue
        if origin not in found or (isinstance(found[origin], P.Project) and not isinstance(node, P.Project)):
            found[origin] = node
    return {origin: step_text(_under_projections(node)) for origin, node in found.items()}


def _under_projections(node: P.Plan) -> P.Plan:
    """A projection's own call's operator below it: a join on names is the call's projection
    (keeping the key once) over a join node that carries no call of its own."""
    below = node
    while isinstance(below, P.Project) and getattr(below.child, "origin", None) is None:
        below = below.child
    return node if isinstance(below, P.Project | P.Source) else below


def graph(trace: Trace, sink: int, name: str, plan: P.Plan | None = None) -> dict[str, Any]:
    """Every event the sink's DataFrame was built from, inputs first, with a label (the
    variable holding it, else the call) and what the engine makes of the call: its own
    operator in `plan` (the pipeline as translated) where there is one, else the coverage
    table's entry for the call."""
    by_id = {e.id: e for e in trace.events}
    names: dict[int, str] = {}
    for variable, event_id in trace.variables.items():
        names.setdefault(event_id, variable)
    seen: list[int] = []

    def visit(eid: int) -> None:
        if eid in seen or eid not in by_id:
            return
        for i in by_id[eid].inputs:
            visit(i)
        seen.append(eid)

    visit(sink)
    own = _own_steps(plan)
    nodes = []
    for eid in seen:
        e = by_id[eid]
        nodes.append({"id": e.id, "op": e.op, "label": names.get(e.id, e.op.split(".")[-1]),
                      "inputs": [i for i in e.inputs if i in by_id],
                      "cell": e.site.execution_count if e.site is not None else None,
                      "what": own.get(e.id) or what_it_is(e.op)})
    return {"name": name, "sink": sink, "nodes": nodes}
