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


def graph(trace: Trace, sink: int, name: str) -> dict[str, Any]:
    """Every event the sink's DataFrame was built from, inputs first, with a label (the
    variable holding it, else the call) and what the engine makes of the call."""
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
    nodes = []
    for eid in seen:
        e = by_id[eid]
        nodes.append({"id": e.id, "op": e.op, "label": names.get(e.id, e.op.split(".")[-1]),
                      "inputs": [i for i in e.inputs if i in by_id],
                      "cell": e.site.execution_count if e.site is not None else None,
                      "what": what_it_is(e.op)})
    return {"name": name, "sink": sink, "nodes": nodes}
