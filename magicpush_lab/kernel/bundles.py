"""What the kernel hands out: the trace, row counts and run times as mime bundles
(magicpush_lab/protocol.py), and the kernel's own measurer for `%magicpush` (assist.py)."""

from __future__ import annotations

import json
from typing import Any, Sequence

from magicpush_lab.capture.trace import Trace
from magicpush_lab.capture.tracer import Tracer, active_tracer
from magicpush_lab.protocol import MEASURE_MIME, RUNTIME_MIME, TRACE_MIME, TRACE_STATUS_MIME



class Bundle:
    """A value whose display is exactly the given mime bundle."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.data

    def __repr__(self) -> str:
        return str(self.data.get("text/plain", "Bundle"))


def _summary(trace: Trace) -> str:
    return (f"MagicPush trace: {len(trace.cells)} cells, {len(trace.events)} events, "
            f"{len(trace.inspections)} inspections, variables {sorted(trace.variables)}")


def current_trace() -> Trace:
    """The trace of the installed tracer (empty if tracing is off)."""
    tracer = active_tracer()
    return tracer.trace() if tracer is not None else Trace()


def trace_bundle() -> Bundle:
    """The live trace as {TRACE_MIME: trace JSON, "text/plain": a one-line summary}. The JSON's
    `tracing` says whether the tracer is installed: an empty trace means "nothing ran since
    tracing started" only when it is (after `%unload_ext` it means "not tracing")."""
    trace = current_trace()
    data = {**trace.to_json(), "tracing": active_tracer() is not None}
    return Bundle({TRACE_MIME: data, "text/plain": _summary(trace)})


def trace_status() -> Bundle:
    """{TRACE_STATUS_MIME: {"tracing", "events", "cells"}}: whether the tracer is installed and how
    many events and cell runs it holds, without reading any plan."""
    tracer = active_tracer()
    recorder = tracer.recorder if tracer is not None else None
    data = {"tracing": tracer is not None, "events": len(recorder.events) if recorder else 0,
            "cells": len(recorder.cells) if recorder else 0}
    return Bundle({TRACE_STATUS_MIME: data, "text/plain": json.dumps(data)})


def measure_in_kernel(tracer: Tracer | None, requests: Sequence[Any], *,
                      time_limit: float | None = None) -> list[dict[str, Any]]:
    """Count the rows of each request (assist.measure_requests) on the DataFrames the tracer
    holds: one measurement or {"error": ...} per request."""
    from magicpush_lab.ir.serialize import expr_from_json
    from magicpush_lab.measure import DEFAULT_TIME_LIMIT, measure

    out: list[dict[str, Any]] = []
    if tracer is None:
        return [{"error": "tracing is not on in this kernel (%load_ext magicpush_lab)"} for _ in requests]
    held = tracer.frames()
    for req in requests:
        scan: dict[str, Any] = {}
        try:
            if not isinstance(req, dict):
                raise ValueError("a request must be an object with source_event and predicate_ir")
            predicate = expr_from_json(req["predicate_ir"])
            ranking: dict[str, Any] = {}
            with tracer.suspended():
                frames = _with_sql_table(held, req)
                if req.get("alternatives"):
                    predicate, ranking = _ranked(frames, int(req["source_event"]), predicate, req["alternatives"])
                scan = _scan_filters(frames, int(req["source_event"]), predicate)
                before, after, estimated = measure(
                    frames, int(req["source_event"]), predicate,
                    **_limits(req.get("time_limit"), DEFAULT_TIME_LIMIT if time_limit is None else time_limit),
                    **_sample(req.get("sample_fraction")))
            cost = _cost(tracer, req, int(before))
            out.append({"rows_before": int(before), "rows_after": int(after), "estimated": bool(estimated),
                        **scan, **ranking, **cost})
        except Exception as err:  # one bad request must not hide the others' results
            out.append({"error": measure_error(err), **scan})
    return out


def _with_sql_table(frames: dict[int, Any], req: dict[str, Any]) -> dict[int, Any]:
    """`frames` with the request's source, when it is a catalog table read inside a query's SQL
    text (capture/trace.SQL_TABLE_OP): that table read by its name on the notebook's session."""
    table = req.get("source_table")
    if not isinstance(table, str) or not frames:
        return frames
    session = next(iter(frames.values())).sparkSession
    return {**frames, int(req["source_event"]): session.table(table)}


def _cost(tracer: Tracer, req: dict[str, Any], rows: int) -> dict[str, Any]:
    """The pipeline's per-row cost for a request that names its pipeline's last DataFrame
    (runtime.per_row_cost, on a sample of the source), as {"cost": ...}; nothing otherwise. A
    Spark Connect server lost while timing is raised: the measurement fails with its message,
    rather than reading as a pipeline too slow to time."""
    from magicpush_lab.runtime import COST_TIME_LIMIT, per_row_cost  # the limit as it is now

    sink = req.get("sink_event")
    if not isinstance(sink, int) or isinstance(sink, bool):
        return {}
    from magicpush_lab.measure import connect_fault

    try:
        return {"cost": per_row_cost(tracer, int(req["source_event"]), sink, rows, time_limit=COST_TIME_LIMIT)}
    except Exception as err:  # noqa: BLE001 - no time estimate is no reason to lose the counts
        if connect_fault(err) is not None:  # but a server gone meanwhile is: the request fails
            raise
        return {"cost": {"note": measure_error(err)}}


def measure_error(err: BaseException) -> str:
    """What a failed count says: a Spark Connect server that cannot be reached (gone, restarted,
    the session expired) by name, a function the session does not have (an older Spark behind a
    Connect server) by name, anything else as its type and first line.

    >>> measure_error(RuntimeError("[UNRESOLVED_ROUTINE] Cannot resolve routine `try_add` on search path"))
    'the Spark session has no function try_add (an older Spark version?): nothing was counted'
    """
    from magicpush_lab.measure import connect_fault, missing_function

    fault = connect_fault(err)
    if fault is not None:
        return fault
    missing = missing_function(err)
    if missing is not None:
        return f"the Spark session has no function {missing} (an older Spark version?): nothing was counted"
    return f"{type(err).__name__}: {_first_line(err)}"


def _limits(requested: Any, default: float) -> dict[str, float]:
    """measure()'s time limits: a request's own positive `time_limit` bounds the exact counts
    and the sample keeps the default limit (a tiny limit means "estimate", not "fail").

    >>> _limits(0.5, 60.0), _limits(None, 60.0), _limits("soon", 60.0)
    ({'time_limit': 0.5, 'sample_time_limit': 60.0}, {'time_limit': 60.0}, {'time_limit': 60.0})
    """
    if isinstance(requested, (int, float)) and not isinstance(requested, bool) and 0 < requested < float("inf"):
        return {"time_limit": float(requested), "sample_time_limit": max(float(requested), default)}
    return {"time_limit": default}


def _sample(requested: Any) -> dict[str, float]:
    """measure()'s sample share: a request's own, when it is a share in (0, 1].

    >>> _sample(0.1), _sample(None), _sample(2)
    ({'sample_fraction': 0.1}, {}, {})
    """
    if isinstance(requested, (int, float)) and not isinstance(requested, bool) and 0 < requested <= 1:
        return {"sample_fraction": float(requested)}
    return {}


def _ranked(frames: Any, source_event: int, predicate: Any, alternatives: list) -> tuple[Any, dict[str, Any]]:
    """The proved predicate or alternative keeping the fewest rows of a sample of the source,
    and {"ranking": ...} saying what each kept; the first predicate when ranking fails."""
    from magicpush_lab.ir.serialize import expr_from_json
    from magicpush_lab.measure import rows_kept_on_sample
    from magicpush_lab.suggestion import best_index

    options = [predicate, *(expr_from_json(a) for a in alternatives)]
    try:
        kept, rows = rows_kept_on_sample(frames, source_event, options)
    except Exception:  # the ranking is a refinement: the search's first choice stands
        return predicate, {}
    return options[best_index(kept)], {"ranking": {"rows_kept": kept, "sample_rows": rows}}


def _scan_filters(frames: Any, source_event: int, predicate: Any) -> dict[str, Any]:
    """{"scan_filters": ...} for a measurement, or {} when the plan could not be read (the
    row counts do not depend on it)."""
    from magicpush_lab.measure import scan_filters

    try:
        return {"scan_filters": scan_filters(frames, source_event, predicate)}
    except Exception:  # a plan Spark cannot show leaves the suggestion without it
        return {}


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0][:300] if text else type(err).__name__


def measure_bundle(requests_json: str) -> Bundle:
    """Measure the JSON list of requests with the DataFrames the tracer holds."""
    try:
        requests = json.loads(requests_json)
        if not isinstance(requests, list):
            raise ValueError("expected a JSON list")
        results = measure_in_kernel(active_tracer(), requests)
    except ValueError as err:
        results = [{"error": f"bad measure request: {err}"}]
    return Bundle({MEASURE_MIME: results, "text/plain": json.dumps(results)})


def runtime_result(tracer: Tracer | None, request: Any) -> dict[str, Any]:
    """Time the original and rewritten pipeline of one request {"source_event", "predicate_ir",
    "kind", "late_filter_event", "sink_event", "runs"?, "time_limit"?}: the runtime answer, or
    {"error", "kind"} when the kernel cannot time it at all. A pipeline that cannot be rebuilt
    is an answer with no runs and the reason in `note`."""
    from magicpush_lab.runtime import DEFAULT_RUNS, DEFAULT_TIME_LIMIT, MAX_RUNS, rewritten_sink, time_both

    if tracer is None:
        return {"error": "tracing is not on in this kernel (%load_ext magicpush_lab)", "kind": "tracing_off"}
    if not isinstance(request, dict) or not isinstance(request.get("source_event"), int) \
            or "predicate_ir" not in request:
        return {"error": "a runtime request needs source_event and predicate_ir", "kind": "bad_request"}
    runs = request.get("runs", DEFAULT_RUNS)
    runs = runs if isinstance(runs, int) and not isinstance(runs, bool) and 1 <= runs <= MAX_RUNS else DEFAULT_RUNS
    limit = _limits(request.get("time_limit"), DEFAULT_TIME_LIMIT)["time_limit"]
    frames = tracer.frames()
    sink = request.get("sink_event")
    if isinstance(sink, int) and sink not in frames:
        return {"error": f"the kernel no longer holds the pipeline's last DataFrame (event {sink}): "
                         "rerun the notebook and optimize again", "kind": "stale_suggestion"}
    rebuilt = rewritten_sink(tracer, request)
    if not rebuilt.ok:
        return {"original_seconds": [], "rewritten_seconds": [], "median_original": None, "median_rewritten": None,
                "speedup": None, "outputs_equal": None, "note": f"not timed: {rebuilt.reason}"}
    with tracer.suspended():
        return time_both(frames[sink], rebuilt.df, runs, limit,
                         compare=not request.get("late_filter_in_pandas", False))


def runtime_bundle(request_json: str) -> Bundle:
    """Time one suggestion's pipeline, original against rewritten, with the live DataFrames."""
    try:
        request = json.loads(request_json)
        result = runtime_result(active_tracer(), request)
    except ValueError as err:
        result = {"error": f"bad runtime request: {err}", "kind": "bad_request"}
    except Exception as err:  # Spark failed while timing: an answer, not a kernel traceback
        result = {"error": f"{type(err).__name__}: {_first_line(err)}", "kind": "runtime_failed"}
    return Bundle({RUNTIME_MIME: result, "text/plain": json.dumps(result)})


def kernel_cells(trace: Trace) -> tuple[list[str], list[str | None]]:
    """The notebook as the kernel knows it: each cell id's latest code, in the order the cells
    first ran, and the id of each; code run without an id counts once per distinct text.

    >>> from magicpush_lab.capture.trace import Cell
    >>> kernel_cells(Trace(cells=(Cell(1, "a", "x"), Cell(2, "b", None), Cell(3, "a2", "x"))))
    (['a2', 'b'], ['x', None])
    """
    slots: dict[Any, int] = {}
    sources: list[str] = []
    ids: list[str | None] = []
    for c in trace.cells:
        key = ("id", c.cell_id) if c.cell_id else ("code", c.source)
        if key in slots:
            sources[slots[key]] = c.source
        else:
            slots[key] = len(sources)
            sources.append(c.source)
            ids.append(c.cell_id)
    return sources, ids
