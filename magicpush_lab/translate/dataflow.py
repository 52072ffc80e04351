"""The notebook's dataflow: events as a DAG, and the pipeline path to optimize.

As in AutoSuggest, the pipeline is the longest source-to-sink path of the
dataflow; inspections (`count`, `show`, ...) are recorded apart and never
count as pipeline steps.
"""

from __future__ import annotations

from typing import Mapping

from magicpush_lab.capture.trace import SQL_TABLE_OP, VIEW_READERS, Event, Trace, Udf, is_source_op
from magicpush_lab.ir import plan as P
from magicpush_lab.translate.plan_json import PlanNodes
from magicpush_lab.translate import rdd
from magicpush_lab.translate.pandas_on_spark import without_unread_row_order
from magicpush_lab.translate.spark_plan import Context, PandasBodyReason, output_of, to_plan


def with_view_inputs(trace: Trace) -> Trace:
    """`trace` with each `spark.sql(...)` and `spark.table(view)` event tied to the DataFrames
    it reads through temp views: Spark's analyzed plan holds each view's own plan, so an
    earlier event whose plan appears in it is an input (the outermost such subtrees; the
    latest of equal plans). Without one, the event stays a source. A DataFrame made by code
    the tracer does not see (a library's function making it in the JVM) is tied
    to the traced DataFrames its plan is built on the same way. Then `with_sql_tables`."""
    from dataclasses import replace

    if not any(_reads_by_plan(e) and not e.inputs for e in trace.events):
        return with_sql_tables(trace)
    nodes = PlanNodes(trace.plans)
    latest: dict[int, int] = {}
    events = []
    for e in sorted(trace.events, key=lambda e: e.id):
        if _reads_by_plan(e) and not e.inputs and e.plan is not None:
            found = _view_inputs(nodes.node(e.plan), latest)
            if found:
                e = replace(e, inputs=found)
        if e.plan is not None:
            latest[e.plan] = e.id
        events.append(e)
    return with_sql_tables(replace(trace, events=tuple(events)))


# the most tables of one query given events of their own (ids stay apart per query)
_TABLES_PER_QUERY = 64
# plan leaves that read a catalog table, and where their CatalogTable is
_TABLE_LEAVES = {"LogicalRelation": "catalogTable", "HiveTableRelation": "tableMeta",
                 "LogicalRelationWithTable": "catalogTable"}


def with_sql_tables(trace: Trace) -> Trace:
    """`trace` with each catalog table a `spark.sql(...)` query reads inside its SQL text (and
    reads once) made an event of its own, an input of the query: a filter can then reach it
    and be written into the SQL text (rewrite/sql_text.py). The event's id is negative,
    -(1 + query * 64 + k), so it sorts before every traced call and never meets one.

    Only queries the trace does not already tie to notebook DataFrames (`with_view_inputs`)."""
    from dataclasses import replace

    queries = [e for e in trace.events if e.op == "sql" and not e.inputs and e.plan is not None and e.id >= 0]
    if not queries:
        return trace
    nodes = PlanNodes(trace.plans)
    added: list[Event] = []
    inputs: dict[int, tuple[int, ...]] = {}
    for q in queries:
        tables = _tables_read(nodes.node(q.plan))
        once = [(name, key) for name, keys in tables.items() if len(keys) == 1 for key in keys]
        made = [Event(-(1 + q.id * _TABLES_PER_QUERY + k), SQL_TABLE_OP, (), key, q.site, (name,))
                for k, (name, key) in enumerate(once[:_TABLES_PER_QUERY])]
        if made:
            added.extend(made)
            inputs[q.id] = tuple(m.id for m in made)
    if not added:
        return trace
    events = tuple(added) + tuple(replace(e, inputs=inputs[e.id]) if e.id in inputs else e for e in trace.events)
    return replace(trace, events=events)


def _tables_read(root) -> dict[str, list]:
    """Qualified table name -> the plan keys of its reads, for the catalog tables under `root`."""
    found: dict[str, list] = {}
    stack = [root]
    while stack:
        n = stack.pop()
        where = _TABLE_LEAVES.get(n.cls)
        if where is not None:
            table = n.field(where)
            ident = table.get("identifier") if isinstance(table, dict) else None
            if isinstance(ident, dict) and isinstance(ident.get("table"), str):
                parts = [ident.get("catalog"), ident.get("database"), ident["table"]]
                found.setdefault(".".join(p for p in parts if isinstance(p, str)), []).append(n.key)
            continue
        stack.extend(n.kids)
    return found


def _reads_by_plan(e: Event) -> bool:
    return e.op in VIEW_READERS or e.op == "unknown"


def _view_inputs(root, latest: Mapping[int, int]) -> tuple[int, ...]:
    found: list[int] = []
    stack = [root]
    while stack:
        n = stack.pop()
        eid = latest.get(n.key)
        if eid is not None:
            if eid not in found:
                found.append(eid)
            continue
        stack.extend(reversed(n.kids))
    return tuple(found)


def longest_path(trace: Trace) -> tuple[Event, ...]:
    """The longest chain of events from a source to a sink (ties: the most recent sink).

    Consumers are counted over the whole trace, so a DataFrame that was only
    inspected (counted, shown) is still a sink.
    """
    paths = sink_paths(trace)
    return paths[0] if paths else ()


def sink_paths(trace: Trace) -> list[tuple[Event, ...]]:
    """For every sink, its longest chain of events from a source; the longest chain first
    (ties: the most recent sink). Each is a pipeline of its own: the notebook may hold several."""
    by_id = {e.id: e for e in trace.events}
    if not by_id:
        return []
    # inputs are recorded before the calls that read them: one pass in id order, no recursion
    best: dict[int, tuple[int, ...]] = {}
    for eid in sorted(by_id):
        paths = [best[i] for i in by_id[eid].inputs if i in best]
        best[eid] = (max(paths, key=len) if paths else ()) + (eid,)

    # a DataFrame collected for a UDF is consumed by the events that run the UDF: not a sink
    consumed = {i for e in trace.events for i in e.inputs} | {i for e in trace.events for i in side_inputs(e)}
    sinks = [e.id for e in trace.events if e.id not in consumed] or [trace.events[-1].id]
    ordered = sorted(sinks, key=lambda s: (len(best[s]), s), reverse=True)
    return [tuple(by_id[i] for i in best[s]) for s in ordered]


def translate_event(trace: Trace, eid: int, pandas_body_reason: PandasBodyReason | None = None,
                    nodes: PlanNodes | None = None) -> P.Plan:
    """The IR of the DataFrame produced by event `eid`; `pandas_body_reason` reads pandas UDF
    bodies (spark_plan.Context). Raises ValueError when the trace has no plan for it."""
    by_id = {e.id: e for e in trace.events}
    if by_id[eid].plan is None:
        raise ValueError(f"the trace has no plan for event {eid}")
    nodes = nodes if nodes is not None else PlanNodes(trace.plans)
    upstream = trace.ancestors(eid)
    events_by_key: dict[int, int] = {}
    # later events win: re-running a cell gives an identical plan a newer event
    for e in sorted((by_id[i] for i in upstream), key=lambda e: e.id):
        if e.plan is not None:
            events_by_key[e.plan] = e.id
    by_loose: dict[str, list[int]] = {}
    for key in events_by_key:
        by_loose.setdefault(nodes.loose(key), []).append(key)
    udfs = udfs_by_name(by_id[i] for i in upstream)
    rebuilt = {i: _round_trip_reader(by_id, by_id[i]) for i in upstream if rdd.is_round_trip(by_id[i])}
    ctx = Context(
        events_by_key=events_by_key,
        source_events=frozenset(i for i in upstream if is_source_op(by_id[i].op) and not by_id[i].inputs),
        udfs=udfs,
        udf_calls={c: u.name for u in udfs.values() for c in u.calls},
        collected=collected_sources(trace, udfs.values(), nodes),
        nodes=nodes,
        events_by_loose=by_loose,
        pandas_body_reason=pandas_body_reason,
        rebuilt=rebuilt,
    )
    return without_unread_row_order(to_plan(nodes.node(by_id[eid].plan), ctx))


def _round_trip_reader(by_id: Mapping[int, Event], event: Event):
    """How the leaf of a DataFrame made back from an RDD is read: the recorded steps over the
    plan of the DataFrame the rows came from (translate/rdd.py)."""
    def read(n, ctx: Context) -> P.Plan:
        frame = by_id.get(event.inputs[0])
        if frame is None or frame.plan is None or ctx.nodes is None:
            return P.Other((), output_of(n), "RDD round trip: the DataFrame the rows came from was not traced",
                           event.id)
        return rdd.round_trip_plan(event, to_plan(ctx.nodes.node(frame.plan), ctx), output_of(n))
    return read


def collected_sources(trace: Trace, udfs, nodes: PlanNodes | None = None) -> dict[int, P.Source]:
    """The DataFrames whose collect() a UDF loops over, each as a source of its own: a predicate
    for it is applied right before the collect (the RowIterPipeline's side input)."""
    by_id = {e.id: e for e in trace.events}
    found: dict[int, P.Source] = {}
    for u in udfs:
        for _, event in u.side_inputs:
            if event in by_id and event not in found and by_id[event].plan is not None:
                output = translate_event(trace, event, nodes=nodes).output
                found[event] = P.Source(f"collected {by_id[event].op}", output, event)
    return found


def side_inputs(event: Event) -> tuple[int, ...]:
    """Events whose collected rows the UDFs of `event` read: inputs too, though not in the plan."""
    return tuple(i for u in event.udfs for _, i in u.side_inputs)


def udfs_by_name(events) -> dict[str, Udf]:
    """The UDFs the events used, by the name Spark's plan calls them.

    Spark's plan names a Python UDF by its function's name, so two different UDFs
    can share one (every lambda is `<lambda>`, a redefined function keeps its name).
    A name with more than one definition gets no source: the UDF is then a black box,
    never analysed with another UDF's body.
    """
    found: dict[str, Udf] = {}
    for e in events:
        for u in e.udfs:
            seen = found.get(u.name)
            if seen is None:
                found[u.name] = u
            elif (seen.source, seen.deterministic) != (u.source, u.deterministic):
                found[u.name] = Udf(u.name, None, seen.deterministic and u.deterministic, u.return_type, u.kind)
            elif u.int_extension_dtype and not seen.int_extension_dtype:
                found[u.name] = u  # seen under both settings: keep the one the reader refuses
    return found
