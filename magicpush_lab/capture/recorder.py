"""The event log: one event per DataFrame-producing call, one inspection per look at a
DataFrame, and what a rebuild needs to make a call again (magicpush_lab/rebuild.py).

Recording a call costs what the call adds and no more: its op, its inputs' events, where it is
in the notebook, its arguments, and a handle on its analyzed plan (one reference; nothing is
serialised and no Spark job runs). Plans are read when the trace is pulled (`trace()`), each
plan node once however many events hold it (classic_plan.py), into one PlanStore.

What is kept stays bounded: an event is kept while the notebook can still reach its DataFrame
(a variable, an output, a later call of the pipeline holds it) or while a kept event is made
from it, and a DataFrame looked at (`count`, `show`...) in a cell is held until that cell runs
again. Everything else is released at the end of each cell, so re-running a cell replaces its
events instead of adding to them.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from dataclasses import dataclass, replace
from typing import Any, Iterator, Mapping, Sequence

from magicpush_lab.capture.hooks import ROWS_OUT, Call
from magicpush_lab.capture.plan_store import PlanStore
from magicpush_lab.capture.trace import Cell, Event, Inspection, Site, Trace
from magicpush_lab.capture.udfs import UdfCapture

MAX_WARNINGS = 1000
#: a store smaller than twice this is never rebuilt: released events' records cost little there
GARBAGE_FLOOR = 50_000


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


@dataclass
class _Entry:
    """A kept event and what it holds: the DataFrame while the notebook does, its plan's handle,
    the call that made it, and its plan's record once read."""

    event: Event
    frame: Any  # weakref.ref to the DataFrame
    handle: Any  # the backend's handle on the analyzed plan
    call: Call | None
    plan: int | None = None
    columns: tuple[tuple[str, str], ...] | None = None


class Recorder:
    """What tracing has seen: cells, events, inspections, the variables holding DataFrames."""

    def __init__(self, backend: Any, udfs: UdfCapture) -> None:
        self.backend, self.udfs = backend, udfs
        self.cells: list[Cell] = []
        self.inspections: list[Inspection] = []
        self.variables: dict[str, int] = {}
        self.warnings: list[str] = []
        self._entries: dict[int, _Entry] = {}
        self._next_id = 0
        self._by_frame: dict[int, int] = {}  # id(DataFrame) -> event id, while it lives
        self._consumers: dict[int, set[int]] = {}
        # DataFrames looked at in a cell, held until that cell runs again: cell key -> {event: df}
        self._pins: dict[Any, dict[int, Any]] = {}
        # DataFrames a temp view names (createOrReplaceTempView...): SQL text and spark.table can
        # read them while no variable holds them, so they are held while the name is theirs:
        # view name -> (event, DataFrame)
        self._views: dict[str, tuple[int, Any]] = {}
        # id(GroupedData or cogrouped ops) -> (a weak reference to it, the call that made it)
        self._groupings: dict[int, tuple[Any, Call]] = {}
        # (event, action) -> events recorded by then, the first time rows of that event's
        # DataFrame went to Python (collect, toPandas, .rdd...): what a rebuild cannot follow
        self._rows_out: dict[tuple[int, str], int] = {}
        self._store = PlanStore()
        self._encoder: Any = None
        self._lock = threading.RLock()

    def warn(self, message: str) -> None:
        with self._lock:
            if len(self.warnings) < MAX_WARNINGS:
                self.warnings.append(message)

    @property
    def events(self) -> list[Event]:
        """The kept events, plan-less (`trace()` reads their plans)."""
        with self._lock:
            return [e.event for e in self._entries.values()]

    # -- recording ----------------------------------------------------------
    def add_cell(self, cell: Cell) -> None:
        with self._lock:
            self.cells.append(cell)
            self._pins.pop(_cell_key(cell), None)  # the cell runs again: its looks are over

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
            cell = self._cell_of(site)
            if cell is not None:  # held until the cell runs again (a look at an expression's result)
                self._pins.setdefault(_cell_key(cell), {})[event] = df
        if action in ROWS_OUT:
            self._note_rows_out(event, action)

    def named_view(self, name: str, df: Any) -> None:
        """`df` is now the temp view `name` (a new DataFrame for a name replaces the old one)."""
        event = self.event_of(df)
        with self._lock:
            self._views[name.lower()] = (event, df)  # view names are case-insensitive, as in Spark

    def rdd_taken(self, df: Any) -> None:
        eid = self._known(df)
        if eid is not None:
            self._note_rows_out(eid, "rdd")

    def collected(self, df: Any, rows: Any) -> None:
        """`rows` is the collect() of `df`'s event (recorded just before the call)."""
        eid = self._known(df)
        if eid is not None:
            self.udfs.collected(rows, eid)

    def remember_grouping(self, grouped: Any, call: Call) -> None:
        """How `grouped` was made; forgotten with it (the calls made from it hold it while kept)."""
        key = id(grouped)

        def gone(ref: Any) -> None:
            with self._lock:
                if self._groupings.get(key, (None,))[0] is ref:
                    del self._groupings[key]

        with self._lock:
            self._groupings[key] = (weakref.ref(grouped, gone), call)

    def _note_rows_out(self, event: int, action: str) -> None:
        with self._lock:  # never dropped while the event is kept: a rebuild relies on each
            self._rows_out.setdefault((event, action), self._next_id)

    def add_event(self, op: str, inputs: tuple[int, ...], df: Any, site: Site | None,
                  args: tuple[str, ...], call: Call | None = None) -> int:
        handle = self.backend.plan_handle(df)
        with self._lock:
            eid = self._next_id
            self._next_id += 1
            self._entries[eid] = _Entry(Event(eid, op, inputs, None, site, args), self._watch(df, eid), handle, call)
            self._by_frame[id(df)] = eid
            for i in inputs:
                self._consumers.setdefault(i, set()).add(eid)
        return eid

    def _watch(self, df: Any, eid: int) -> Any:
        key = id(df)

        def gone(_: Any) -> None:
            with self._lock:
                if self._by_frame.get(key) == eid:
                    del self._by_frame[key]

        return weakref.ref(df, gone)

    def _known(self, df: Any) -> int | None:
        eid = self._by_frame.get(id(df))
        entry = self._entries.get(eid) if eid is not None else None
        return eid if entry is not None and entry.frame() is df else None

    def event_of(self, df: Any) -> int:
        """The event that produced `df`; a DataFrame made outside tracing gets an "unknown" event."""
        known = self._known(df)
        return known if known is not None else self.add_event("unknown", (), df, None, ())

    def end_cell(self, user_ns: Mapping[str, Any], error: str | None = None) -> None:
        """Note which variables hold traced DataFrames now, and release what nothing holds;
        `error`: the cell raised, and this is its error's line."""
        if error is not None:
            with self._lock:
                if self.cells:
                    self.cells[-1] = replace(self.cells[-1], error=error)
        found: dict[str, int] = {}
        for name, value in list(user_ns.items()):
            if name.startswith("_") or not self.backend.is_dataframe(value):
                continue
            eid = self._known(value)
            if eid is not None:
                found[name] = eid
        with self._lock:
            self.variables = found
        self.release_unreachable()

    def _dataframes_in(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Iterator[Any]:
        for value in itertools.chain(args, kwargs.values()):
            if self.backend.is_dataframe(value):
                yield value
            elif isinstance(value, (list, tuple)):
                yield from (v for v in value if self.backend.is_dataframe(v))

    def _cell_of(self, site: Site | None) -> Cell | None:
        if site is None:
            return None
        return next((c for c in reversed(self.cells) if c.execution_count == site.execution_count), None)

    # -- what is kept ---------------------------------------------------------
    def release_unreachable(self) -> None:
        """Drop the events whose DataFrame nothing holds and from which no kept event is made;
        the latest, so that releasing a call lets its input go in the same pass."""
        with self._lock:
            pinned = {eid for pins in self._pins.values() for eid in pins}
            pinned |= {eid for eid, _ in self._views.values()}
            kept: set[int] = set()
            for eid in sorted(self._entries, reverse=True):
                entry = self._entries[eid]
                if entry.frame() is not None or eid in pinned or self._consumers.get(eid, set()) & kept:
                    kept.add(eid)
                    continue
                del self._entries[eid]  # its call goes with it: its inputs may go next
                for i in entry.event.inputs:
                    self._consumers.get(i, set()).discard(eid)
                self._consumers.pop(eid, None)
            self.inspections = self._latest_looks(kept)
            self._rows_out = {k: v for k, v in self._rows_out.items() if k[0] in kept}
            self.cells = self._cells_in_use()

    def _latest_looks(self, kept: set[int]) -> list[Inspection]:
        """The inspections of kept events, one per event, action and place in a cell (its latest
        run): a cell run again does not add its looks again."""
        keys = {c.execution_count: _cell_key(c) for c in self.cells}
        latest: dict[tuple, Inspection] = {}
        for i in self.inspections:
            if i.event not in kept:
                continue
            where = (keys.get(i.site.execution_count), i.site.lineno, i.site.col_offset) if i.site else None
            key = (i.event, i.action, where)
            latest.pop(key, None)
            latest[key] = i
        return list(latest.values())

    def _cells_in_use(self) -> list[Cell]:
        """The latest run of each cell, and every run a kept event or look points into."""
        used = {e.event.site.execution_count for e in self._entries.values() if e.event.site is not None}
        used |= {i.site.execution_count for i in self.inspections if i.site is not None}
        latest = {_cell_key(c): c.execution_count for c in self.cells}
        return [c for c in self.cells if c.execution_count in used or latest[_cell_key(c)] == c.execution_count]

    # -- results ------------------------------------------------------------
    def trace(self) -> Trace:
        """The trace of the kept events, their plans read now (each plan node once ever)."""
        self.release_unreachable()
        with self._lock:
            entries = list(self._entries.values())
            if len(self._store) > 2 * GARBAGE_FLOOR and not any(e.plan is None for e in entries):
                self._collect_garbage(entries)
            named = set(self.variables.values())
            for entry in entries:  # in id order: an input's plan is read before its consumers'
                if entry.plan is None:
                    entry.plan = self._read_plan(entry)
                # the columns of what a variable holds, for display: every event's would grow the
                # trace with the square of a loop's length
                if entry.columns is None and entry.event.id in named and entry.frame() is not None:
                    entry.columns = self._columns(entry)
            store, moved = self._store.restricted(e.plan for e in entries if e.plan is not None)
            events = tuple(replace(e.event, plan=moved.get(e.plan) if e.plan is not None else None,
                                   columns=e.columns or (), udfs=self._udfs(store, moved.get(e.plan), e.frame()))
                           for e in entries)
            return Trace(tuple(self.cells), events, tuple(self.inspections), dict(self.variables), store)

    def _collect_garbage(self, entries: list[_Entry]) -> None:
        """Records of released events dominate the store: start a new one with the kept plans
        (re-read on this pull, each JVM node once again)."""
        store, _ = self._store.restricted(e.plan for e in entries if e.plan is not None)
        if len(self._store) > 2 * len(store):
            self._store, self._encoder = PlanStore(), None
            for entry in entries:
                entry.plan = None

    def _read_plan(self, entry: _Entry) -> int | None:
        try:
            if self._encoder is None:
                self._encoder = self.backend.plan_encoder(self._store)
            return self._encoder.encode(entry.handle)
        except Exception as err:  # an unreadable plan makes its event opaque, never the pull fail
            self.warn(f"plan of event {entry.event.id}: {type(err).__name__}: {err}")
            return None

    def _columns(self, entry: _Entry) -> tuple[tuple[str, str], ...] | None:
        try:
            return self.backend.columns(entry.frame())
        except Exception:
            return None

    def _udfs(self, store: PlanStore, plan: int | None, frame: Any) -> tuple:
        # the session the DataFrame runs on decides how its pandas UDFs see integer columns
        session = getattr(frame, "sparkSession", None) if frame is not None else None
        return self.udfs.udfs_of(store, plan, session) if plan is not None else ()

    def frames(self) -> dict[int, Any]:
        """Event id -> the DataFrame it produced, for the events whose DataFrame is still held."""
        with self._lock:
            return {eid: df for eid, df in ((eid, e.frame()) for eid, e in self._entries.items()) if df is not None}

    def calls(self) -> dict[int, Call]:
        """Event id -> the call that produced it (events made outside tracing have none)."""
        with self._lock:
            return {eid: e.call for eid, e in self._entries.items() if e.call is not None}

    def grouping_of(self, grouped: Any) -> Call | None:
        """The call that made a GroupedData (or cogrouped ops), if it was traced."""
        with self._lock:
            known = self._groupings.get(id(grouped))
        return known[1] if known is not None and known[0]() is grouped else None

    def rows_out(self) -> tuple[tuple[int, str, int], ...]:
        """(event, action, events recorded by then) for each time rows of an event's DataFrame
        went to Python: a collect-like action or reading `.rdd` (the first of each)."""
        with self._lock:
            return tuple((event, action, made) for (event, action), made in self._rows_out.items())


def _cell_key(cell: Cell) -> Any:
    """What makes two runs one notebook cell: its id, or without one its code."""
    return ("id", cell.cell_id) if cell.cell_id else ("code", cell.source)
