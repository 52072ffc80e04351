"""The event log: one event per DataFrame-producing call, one inspection per look at a
DataFrame, and what a rebuild needs to make a call again (rebuild.py).

The recorder is told about calls by the hooks (hooks.py) and reads what it stores from a
DataFrame through the backend (classic.py); the Python UDFs a plan calls come from the UDF
capture (udfs.py). It holds the DataFrames it made events of, so that measuring can count
their rows.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Iterator, Mapping, Sequence

from magicpush_lab.capture.hooks import ROWS_OUT, Call
from magicpush_lab.capture.trace import Cell, Event, Inspection, Site, Trace
from magicpush_lab.capture.udfs import UdfCapture

MAX_WARNINGS = 1000


def _short(value: Any, limit: int = 120) -> str:
    try:
        from pyspark.sql import DataFrame

        text = "DataFrame" if isinstance(value, DataFrame) else repr(value)
    except Exception:  # a repr that fails must not fail the user's call
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short_args(args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[str, ...]:
    """Short reprs of a call's arguments (the receiver excluded by the caller).

    >>> short_args((1, "x" * 200), {"how": "inner"})[1][-3:], short_args((), {"how": "inner"})
    ('...', ("how='inner'",))
    """
    return tuple([_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()])


class Recorder:
    """What tracing has seen: cells, events, inspections, the variables holding DataFrames."""

    def __init__(self, backend: Any, udfs: UdfCapture) -> None:
        self.backend, self.udfs = backend, udfs
        self.cells: list[Cell] = []
        self.events: list[Event] = []
        self.inspections: list[Inspection] = []
        self.variables: dict[str, int] = {}
        self.warnings: list[str] = []
        self._frames: dict[int, tuple[Any, int]] = {}  # id(df) -> (df, event id); the df ref keeps ids unique
        self._calls: dict[int, Call] = {}  # event id -> the call that produced it
        # id(GroupedData or cogrouped ops) -> (that object, the call that made it)
        self._groupings: dict[int, tuple[Any, Call]] = {}
        # (event, action, events recorded by then) for each time rows of a DataFrame went to
        # Python (collect, toPandas, .rdd...): what a rebuild cannot follow (rebuild.py)
        self._rows_out: list[tuple[int, str, int]] = []
        self._lock = threading.RLock()

    def warn(self, message: str) -> None:
        with self._lock:
            if len(self.warnings) < MAX_WARNINGS:
                self.warnings.append(message)

    # -- recording ----------------------------------------------------------
    def add_cell(self, cell: Cell) -> None:
        with self._lock:
            self.cells.append(cell)

    def record_step(self, op: str, receiver: str, args: tuple, kwargs: dict, result: Any, site: Site | None,
                    method: str | None = None) -> None:
        if isinstance(result, list) and result and all(self.backend.is_dataframe(r) for r in result):
            for part in result:  # randomSplit: one event per returned DataFrame
                self.record_step(op, receiver, args, kwargs, part, site, method)
            return
        if not self.backend.is_dataframe(result):
            return
        inputs: list[int] = []
        rest = args[1:]  # the receiver, or the reader or the session of a source
        if receiver == "dataframe":
            inputs.append(self.event_of(args[0]))
        elif receiver in ("grouped", "cogrouped"):
            inputs.extend(self.event_of(df) for df in self.backend.grouped_inputs(args[0]))
        for df in self._dataframes_in(rest, kwargs):
            inputs.append(self.event_of(df))
        call = Call(receiver, method or op, tuple(args), dict(kwargs))
        self.add_event(op, tuple(inputs), result, site, short_args(rest, kwargs), call)

    def record_inspection(self, action: str, df: Any, site: Site | None) -> None:
        event = self.event_of(df)
        with self._lock:
            self.inspections.append(Inspection(event, action, site))
        if action in ROWS_OUT:
            self._note_rows_out(event, action)

    def rdd_taken(self, df: Any) -> None:
        known = self._frames.get(id(df))
        if known is not None and known[0] is df:
            self._note_rows_out(known[1], "rdd")

    def collected(self, df: Any, rows: Any) -> None:
        """`rows` is the collect() of `df`'s event (recorded just before the call)."""
        known = self._frames.get(id(df))
        if known is not None and known[0] is df:
            self.udfs.collected(rows, known[1])

    def remember_grouping(self, grouped: Any, call: Call) -> None:
        with self._lock:
            self._groupings[id(grouped)] = (grouped, call)

    def _note_rows_out(self, event: int, action: str) -> None:
        with self._lock:  # never capped: a rebuild relies on every one being here
            self._rows_out.append((event, action, len(self.events)))

    def add_event(self, op: str, inputs: tuple[int, ...], df: Any, site: Site | None,
                  args: tuple[str, ...], call: Call | None = None) -> int:
        plan = self.backend.plan_json(df)
        columns = self.backend.columns(df)
        udfs = self.udfs.udfs_of(plan)
        with self._lock:
            eid = len(self.events)
            self.events.append(Event(eid, op, inputs, plan, site, args, columns, udfs))
            self._frames[id(df)] = (df, eid)
            if call is not None:
                self._calls[eid] = call
        return eid

    def event_of(self, df: Any) -> int:
        """The event that produced `df`; a DataFrame made outside tracing gets an "unknown" event."""
        known = self._frames.get(id(df))
        if known is not None and known[0] is df:
            return known[1]
        return self.add_event("unknown", (), df, None, ())

    def end_cell(self, user_ns: Mapping[str, Any]) -> None:
        """Note which variables hold traced DataFrames now."""
        found: dict[str, int] = {}
        for name, value in list(user_ns.items()):
            if name.startswith("_") or not self.backend.is_dataframe(value):
                continue
            known = self._frames.get(id(value))
            if known is not None and known[0] is value:
                found[name] = known[1]
        with self._lock:
            self.variables = found

    def _dataframes_in(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Iterator[Any]:
        for value in itertools.chain(args, kwargs.values()):
            if self.backend.is_dataframe(value):
                yield value
            elif isinstance(value, (list, tuple)):
                yield from (v for v in value if self.backend.is_dataframe(v))

    # -- results ------------------------------------------------------------
    def trace(self) -> Trace:
        with self._lock:
            return Trace(tuple(self.cells), tuple(self.events), tuple(self.inspections), dict(self.variables))

    def frames(self) -> dict[int, Any]:
        """Event id -> the DataFrame it produced, for the events whose DataFrame is still held."""
        with self._lock:
            return {eid: df for df, eid in self._frames.values()}

    def calls(self) -> dict[int, Call]:
        """Event id -> the call that produced it (events made outside tracing have none)."""
        with self._lock:
            return dict(self._calls)

    def grouping_of(self, grouped: Any) -> Call | None:
        """The call that made a GroupedData (or cogrouped ops), if it was traced."""
        with self._lock:
            known = self._groupings.get(id(grouped))
        return known[1] if known is not None and known[0] is grouped else None

    def rows_out(self) -> tuple[tuple[int, str, int], ...]:
        """(event, action, events recorded by then) for each time rows of an event's DataFrame
        went to Python: a collect-like action or reading `.rdd`."""
        with self._lock:
            return tuple(self._rows_out)
