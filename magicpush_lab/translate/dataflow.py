"""The notebook's dataflow: events as a DAG, and the pipeline path to optimize.

As in AutoSuggest, the pipeline is the longest source-to-sink path of the
dataflow; inspections (`count`, `show`, ...) are recorded apart and never
count as pipeline steps.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Mapping

from magicpush_lab.capture.trace import VIEW_READERS, Event, Trace, Udf, is_source_op
from magicpush_lab.ir import plan as P
from magicpush_lab.translate.plan_json import canonical, decode_text, shape
from magicpush_lab.translate.spark_plan import Context, PandasBodyReason, to_plan


def with_view_inputs(trace: Trace) -> Trace:
    """`trace` with each `spark.sql(...)` and `spark.table(view)` event tied to the DataFrames
    it reads through temp views: Spark's analyzed plan holds each view's own plan, so an
    earlier event whose plan appears in it is an input (the outermost such subtrees; the
    latest of equal plans). Without one, the event stays a source."""
    from dataclasses import replace

    latest: dict[str, int] = {}
    events = []
    for e in sorted(trace.events, key=lambda e: e.id):
        if e.op in VIEW_READERS and not e.inputs:
            found = _view_inputs(e, latest)
            if found:
                e = replace(e, inputs=found)
        try:
            latest[canonical_plan(e.plan)] = e.id
        except ValueError:
            pass  # an unreadable plan matches nothing
        events.append(e)
    if all(a is b for a, b in zip(events, sorted(trace.events, key=lambda e: e.id))):
        return trace
    return replace(trace, events=tuple(events))


def _view_inputs(event: Event, latest: Mapping[str, int]) -> tuple[int, ...]:
    try:
        root = decode_text(event.plan)
    except ValueError:
        return ()
    found: list[int] = []

    def visit(n) -> None:
        eid = latest.get(n.key)
        if eid is not None:
            if eid not in found:
                found.append(eid)
            return
        for k in n.kids:
            visit(k)

    visit(root)
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

    @lru_cache(maxsize=None)
    def best(eid: int) -> tuple[int, ...]:
        ev = by_id[eid]
        paths = [best(i) for i in ev.inputs if i in by_id]
        return (max(paths, key=len) if paths else ()) + (eid,)

    # a DataFrame collected for a UDF is consumed by the events that run the UDF: not a sink
    consumed = {i for e in trace.events for i in e.inputs} | {i for e in trace.events for i in side_inputs(e)}
    sinks = [e.id for e in trace.events if e.id not in consumed] or [trace.events[-1].id]
    ordered = sorted(sinks, key=lambda s: (len(best(s)), s), reverse=True)
    return [tuple(by_id[i] for i in best(s)) for s in ordered]


def translate_event(trace: Trace, eid: int, pandas_body_reason: PandasBodyReason | None = None) -> P.Plan:
    """The IR of the DataFrame produced by event `eid`; `pandas_body_reason` reads pandas UDF
    bodies (spark_plan.Context)."""
    by_id = {e.id: e for e in trace.events}
    upstream = trace.ancestors(eid)
    events_by_key: dict[str, int] = {}
    # later events win: re-running a cell gives an identical plan a newer event
    for e in sorted((by_id[i] for i in upstream), key=lambda e: e.id):
        events_by_key[canonical_plan(e.plan)] = e.id
    by_shape: dict[str, set[int]] = {}
    for key, eid in events_by_key.items():
        by_shape.setdefault(shape(key), set()).add(eid)
    udfs = udfs_by_name(by_id[i] for i in upstream)
    ctx = Context(
        events_by_key=events_by_key,
        source_events=frozenset(i for i in upstream if is_source_op(by_id[i].op) and not by_id[i].inputs),
        udfs=udfs,
        collected=collected_sources(trace, udfs.values()),
        events_by_shape={k: next(iter(ids)) for k, ids in by_shape.items() if len(ids) == 1},
        pandas_body_reason=pandas_body_reason,
    )
    return to_plan(decode_text(by_id[eid].plan), ctx)


def collected_sources(trace: Trace, udfs) -> dict[int, P.Source]:
    """The DataFrames whose collect() a UDF loops over, each as a source of its own: a predicate
    for it is applied right before the collect (the RowIterPipeline's side input)."""
    by_id = {e.id: e for e in trace.events}
    found: dict[int, P.Source] = {}
    for u in udfs:
        for _, event in u.side_inputs:
            if event in by_id and event not in found:
                output = translate_event(trace, event).output
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


@lru_cache(maxsize=4096)
def canonical_plan(text: str) -> str:
    import json

    return canonical(json.loads(text))


def consumers(trace: Trace) -> Mapping[int, tuple[int, ...]]:
    out: dict[int, list[int]] = {}
    for e in trace.events:
        for i in e.inputs:
            out.setdefault(i, []).append(e.id)
    return {k: tuple(v) for k, v in out.items()}
