"""Re-run a traced pipeline on other inputs: the notebook's last DataFrame as it would be with
a filter moved to the source, built from the live DataFrames and the calls the tracer kept.

`rebuild(sink_event, {source_event: source_df.filter(G), late_filter_event: REMOVED})` walks
the events from the replaced ones to the sink and calls each recorded method again with its
recorded arguments, DataFrames of rebuilt events substituted. Events off those paths keep
their live DataFrames. When something on the way cannot be made again faithfully, the answer
is a reason, never a DataFrame of another pipeline:

- a call the tracer did not record (a DataFrame made before tracing, an "unknown" event) or
  one whose result is not one DataFrame (randomSplit);
- a groupBy/pivot/cogroup whose making was not traced;
- rows taken to Python (collect, toPandas, `.rdd`...) from a DataFrame the rebuild changes,
  before some DataFrame of the pipeline was made: they may have come back (an RDD round
  trip, `createDataFrame(pdf)`, a list a UDF reads), and would still be the old rows;
- a subquery column (`df.scalar()`, `df.exists()`) on the way: it holds a plan of its own;
- a sink whose columns come out different.

>>> Rebuilt(None, "no").ok, describe_missing(3, "read.parquet")
(False, 'event 3 (read.parquet) has no recorded call to re-run')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from magicpush_lab.capture.tracer import Tracer, active_tracer


class _Removed:
    def __repr__(self) -> str:
        return "REMOVED"


#: A replacement meaning "this event is left out": its DataFrame is its (rebuilt) input.
REMOVED: Any = _Removed()

# The expressions that hold a plan of their own (subqueries), by simple class name.
_SUBQUERY_CLASSES = frozenset({"ScalarSubquery", "ListQuery", "Exists", "LateralSubquery", "InSubquery"})

# Ops that drop rows and nothing else: the only ones REMOVED may stand for.
_FILTER_OPS = ("filter", "where")


@dataclass(frozen=True)
class Rebuilt:
    """The rebuilt sink DataFrame, or why there is none."""

    df: Any
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None


class CannotRebuild(Exception):
    """Something on the way from a replaced event to the sink cannot be re-run."""


def describe_missing(event: int, op: str) -> str:
    return f"event {event} ({op}) has no recorded call to re-run"


def affected(events: Mapping[int, Any], among: set[int], replaced: set[int]) -> list[int]:
    """The events of `among` that are replaced or computed from a replaced one, in trace order
    (an event's inputs are recorded before it, so this order re-runs inputs first).

    >>> from types import SimpleNamespace as E
    >>> evs = {0: E(inputs=()), 1: E(inputs=(0,)), 2: E(inputs=()), 3: E(inputs=(1, 2))}
    >>> affected(evs, {0, 1, 2, 3}, {1})
    [1, 3]
    """
    out: list[int] = []
    hit: set[int] = set()
    for eid in sorted(among):
        if eid in replaced or any(i in hit for i in events[eid].inputs):
            hit.add(eid)
            out.append(eid)
    return out


def rows_out_reason(rows_out: Any, changed: set[int], pipeline: set[int]) -> str | None:
    """Why rows handed to Python may flow back into the pipeline with their old values: rows of
    a changed event went out while some event of the pipeline was still to be made.

    >>> rows_out_reason([(1, "toPandas", 3)], {1, 2}, {0, 1, 2, 4})
    'rows of event 1 went to Python (toPandas) before event 4 of the pipeline was made; they may come back into it unchanged'
    >>> rows_out_reason([(2, "collect", 5)], {1, 2}, {0, 1, 2, 4}) is None
    True
    """
    last = max(pipeline) if pipeline else -1
    for event, action, made in rows_out:
        if event in changed and last >= made:
            later = min(e for e in pipeline if e >= made)
            return (f"rows of event {event} went to Python ({action}) before event {later} of the pipeline "
                    "was made; they may come back into it unchanged")
    return None


def view_reason(events: Mapping[int, Any], pipeline: set[int], changed: set[int],
                classes: Any = lambda eid: set()) -> str | None:
    """Why a `spark.sql` / `spark.table` event of the pipeline may read a changed DataFrame
    through a temp view: it reads a view and was made after the first changed event. Re-running
    it would read the view as registered, with the old rows. `classes(eid)` are the simple class
    names in the event's plan.

    >>> from types import SimpleNamespace as E
    >>> evs = {0: E(op="read.parquet"), 2: E(op="sql")}
    >>> view_reason(evs, {0, 2}, {0}, lambda eid: {"Project", "View"} if eid == 2 else set())
    'event 2 (sql) reads a temp view, which may hold a DataFrame the rebuild changes'
    >>> view_reason(evs, {0, 2}, set(), lambda eid: {"View"}) is None
    True
    """
    from magicpush_lab.capture.trace import VIEW_READERS

    first = min(changed, default=None)
    for eid in sorted(pipeline):
        e = events[eid]
        if first is not None and eid > first and e.op in VIEW_READERS | {"read.table"} and "View" in classes(eid):
            return f"event {eid} ({e.op}) reads a temp view, which may hold a DataFrame the rebuild changes"
    return None


def rebuild(sink_event: int, replacements: Mapping[int, Any], tracer: Tracer | None = None) -> Rebuilt:
    """The sink's DataFrame with the replaced events' DataFrames substituted (a DataFrame, or
    REMOVED for a filter left out), re-running every traced call in between; or a reason.

    Runs the calls with the tracer suspended, so the rebuild adds nothing to the trace.
    """
    tracer = tracer if tracer is not None else active_tracer()
    if tracer is None:
        return Rebuilt(None, "tracing is not on in this kernel (%load_ext magicpush_lab)")
    trace = tracer.trace()
    events = {e.id: e for e in trace.events}
    for eid in (sink_event, *replacements):
        if eid not in events:
            return Rebuilt(None, f"event {eid} is not in this kernel's trace (was the notebook rerun?)")
    frames = tracer.frames()
    if sink_event not in frames:
        return Rebuilt(None, f"the kernel no longer holds the DataFrame of event {sink_event}")
    pipeline = trace.ancestors(sink_event)
    off = sorted(set(replacements) - pipeline)
    if off:  # replacing only some would time another rewrite than the one asked for
        return Rebuilt(None, f"the DataFrame of event {sink_event} is not computed from event(s) "
                             f"{off} in the trace (rows may have left Spark and come back)")
    order = affected(events, pipeline, set(replacements))
    changed = set(order)
    def classes(eid: int) -> set[str]:
        plan = events[eid].plan
        return trace.plans.classes(plan) if plan is not None else set()

    reason = rows_out_reason(tracer.rows_out(), changed, pipeline) or view_reason(events, pipeline, changed, classes)
    if reason is not None:
        return Rebuilt(None, reason)
    try:
        with tracer.suspended():
            df = _run(tracer, events, frames, order, replacements, classes)
    except CannotRebuild as err:
        return Rebuilt(None, str(err))
    except Exception as err:  # Spark refused a re-run call: say so rather than guess
        text = str(err).strip().splitlines()
        return Rebuilt(None, f"re-running the pipeline failed: {type(err).__name__}: {text[0][:300] if text else ''}")
    original = frames[sink_event]
    if _columns(df) != _columns(original):
        return Rebuilt(None, f"the rebuilt pipeline's columns {_columns(df)} differ from the original's "
                             f"{_columns(original)}")
    return Rebuilt(df)


def _columns(df: Any) -> list[tuple[str, str]]:
    return [(f.name, f.dataType.simpleString()) for f in df.schema.fields]


def _run(tracer: Tracer, events: Mapping[int, Any], frames: Mapping[int, Any], order: list[int],
         replacements: Mapping[int, Any], classes: Any) -> Any:
    """Re-run the events of `order`; the last one's new DataFrame."""
    backend = tracer.backend
    calls = tracer.calls()
    by_id = {id(df): eid for eid, df in frames.items()}
    rebuilt: dict[int, Any] = {}

    def subst(value: Any) -> Any:
        if backend.is_dataframe(value):
            eid = by_id.get(id(value))
            if eid is not None and frames.get(eid) is value and eid in rebuilt:
                return rebuilt[eid]
            return value
        if isinstance(value, (list, tuple)):
            out = [subst(v) for v in value]
            return value if all(a is b for a, b in zip(out, value)) else type(value)(out)
        if isinstance(value, dict):
            new = {k: subst(v) for k, v in value.items()}
            return value if all(new[k] is v for k, v in value.items()) else new
        if backend.is_grouping(value):
            return regroup(value)
        return value

    def regroup(grouped: Any) -> Any:
        call = tracer.grouping_of(grouped)
        if call is None:
            if any(subst(df) is not df for df in backend.grouped_inputs(grouped)):
                raise CannotRebuild("a grouping (groupBy, pivot, cogroup) on the way was not traced")
            return grouped
        args, kwargs = subst(call.args), subst(call.kwargs)
        if args is call.args and kwargs is call.kwargs:
            return grouped
        return getattr(args[0], call.method)(*args[1:], **kwargs)

    for eid in order:
        event = events[eid]
        if eid in replacements:
            value = replacements[eid]
            if value is REMOVED:
                if event.op not in _FILTER_OPS or len(event.inputs) != 1:
                    raise CannotRebuild(f"event {eid} ({event.op}) is not a filter: it cannot be left out")
                value = rebuilt.get(event.inputs[0], frames.get(event.inputs[0]))
                if value is None:
                    raise CannotRebuild(f"the kernel no longer holds the input of event {eid}")
            rebuilt[eid] = value
            continue
        call = calls.get(eid)
        if call is None:
            raise CannotRebuild(describe_missing(eid, event.op))
        if call.method == "randomSplit":
            raise CannotRebuild(f"event {eid} is one part of a randomSplit: its rows depend on the split's input")
        if event.plan is None or classes(eid) & _SUBQUERY_CLASSES:
            raise CannotRebuild(f"event {eid} ({event.op}) holds a subquery (or an unread plan), "
                                "whose plan a rebuild cannot follow")
        args, kwargs = subst(call.args), subst(call.kwargs)
        result = getattr(args[0], call.method)(*args[1:], **kwargs)
        if not backend.is_dataframe(result):
            raise CannotRebuild(f"re-running event {eid} ({event.op}) gave no DataFrame")
        rebuilt[eid] = result
    return rebuilt[order[-1]]
