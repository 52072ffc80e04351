"""Record a notebook's PySpark dataflow while a `Tracer` is installed.

Every DataFrame-producing call (read, filter, withColumn, join...) becomes an `Event` and every
action or look at a DataFrame (count, show, toPandas...) an `Inspection`. Recording must never
change what user code sees: any failure inside it is swallowed and kept in `Tracer.warnings`.

The tracer only puts four parts together, one job each:
- hooks.py wraps the API's methods and tells the tracer about each call;
- recorder.py keeps the event log and the DataFrames it was made of;
- sites.py finds the call's place in the notebook cell that made it;
- udfs.py captures Python UDFs as Spark ships them;
- rdd.py and ml.py follow rows through RDD round trips and Spark ML's transform and fit.
Which API is wrapped, and how a DataFrame's plan is read, is the backend's: classic.py for classic
sessions, connect.py for Spark Connect ones, both at once through backends.py.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Iterator, Mapping

from magicpush_lab.capture import ml, rdd
from magicpush_lab.capture.backends import Backends
from magicpush_lab.capture.hooks import Call, Hooks, depth
from magicpush_lab.capture.recorder import Recorder
from magicpush_lab.capture.sites import CellSites
from magicpush_lab.capture.trace import Cell, Event, Inspection, Site, Trace
from magicpush_lab.capture.udfs import UdfCapture

_ACTIVE: "Tracer | None" = None
_INSTALL_LOCK = threading.Lock()


class Tracer:
    """Wraps a PySpark API while installed and accumulates a `Trace`."""

    def __init__(self, backend: Any = None) -> None:
        self.backend = backend if backend is not None else Backends()
        self.sites = CellSites()
        self.udfs = UdfCapture()
        self.recorder = Recorder(self.backend, self.udfs)
        self.rdd = rdd.RddLineage()
        self._hooks = Hooks(self)
        self._lock = threading.RLock()
        self._suspended = 0

    # -- installation -------------------------------------------------------
    @property
    def installed(self) -> bool:
        return self._hooks.installed

    def install(self) -> None:
        """Wrap the PySpark API; idempotent. Only one tracer can be installed at a time."""
        global _ACTIVE
        with _INSTALL_LOCK:
            if _ACTIVE is self:
                return
            if _ACTIVE is not None:
                raise RuntimeError("another Tracer is installed; uninstall it first")
            self._hooks.install()
            for owner, name, make in rdd.patches(self, self.rdd):  # RDD round trips' lineage
                self._hooks.add(owner, name, make)
            for owner, name, make in ml.patches(self):  # Spark ML's transform and fit
                self._hooks.add(owner, name, make)
            _ACTIVE = self

    def uninstall(self) -> None:
        """Put every original method back."""
        global _ACTIVE
        with _INSTALL_LOCK:
            self._hooks.uninstall()
            if _ACTIVE is self:
                _ACTIVE = None

    @contextmanager
    def suspended(self) -> Iterator[None]:
        """Run PySpark calls without recording them (our own measuring, for instance)."""
        with self._lock:
            self._suspended += 1
        try:
            yield
        finally:
            with self._lock:
                self._suspended -= 1

    @property
    def active(self) -> bool:
        """This tracer is the installed one."""
        return _ACTIVE is self

    @property
    def recording(self) -> bool:
        """Installed and not suspended."""
        return _ACTIVE is self and not self._suspended

    def should_record(self, caller: Any) -> bool:
        """Whether a wrapped call made from frame `caller` is recorded."""
        if not self.recording:
            return False
        # A wrapped method calling another wrapped method is PySpark's inner
        # working: record the outermost call only, unless the inner call comes
        # straight from notebook code (a callback such as df.transform(f)).
        return depth() == 0 or self.sites.is_cell_code(caller.f_code.co_filename)

    # -- what the hooks report ------------------------------------------------
    def record_step(self, op: str, receiver: str, args: tuple, kwargs: dict, result: Any, caller: Any,
                    method: str | None = None) -> None:
        self.recorder.record_step(op, receiver, args, kwargs, result, self.sites.site_of(caller), method)

    def record_inspection(self, action: str, df: Any, caller: Any) -> None:
        self.recorder.record_inspection(action, df, self.sites.site_of(caller))

    def warn(self, message: str) -> None:
        self.recorder.warn(message)

    # -- cells ----------------------------------------------------------------
    def begin_cell(self, execution_count: int, raw: str, code_name: str, transformed: str | None = None,
                   cell_id: str | None = None) -> None:
        """Register a cell execution whose code will run from file name `code_name`."""
        self.sites.begin_cell(execution_count, raw, code_name, transformed)
        self.recorder.add_cell(Cell(execution_count, raw, cell_id))

    def end_cell(self, user_ns: Mapping[str, Any], error: str | None = None) -> None:
        """Note which variables hold traced DataFrames now, and the cell's error if it raised."""
        self.recorder.end_cell(user_ns, error)

    def site_of(self, frame: Any) -> Site | None:
        return self.sites.site_of(frame)

    # -- results ------------------------------------------------------------
    def event_of(self, df: Any) -> int:
        return self.recorder.event_of(df)

    def trace(self) -> Trace:
        return self.recorder.trace()

    def frames(self) -> dict[int, Any]:
        """Event id -> the DataFrame it produced, for the events whose DataFrame is still held."""
        return self.recorder.frames()

    def calls(self) -> dict[int, Call]:
        """Event id -> the call that produced it (events made outside tracing have none)."""
        return self.recorder.calls()

    def grouping_of(self, grouped: Any) -> Call | None:
        """The call that made a GroupedData (or cogrouped ops), if it was traced."""
        return self.recorder.grouping_of(grouped)

    def rows_out(self) -> tuple[tuple[int, str, int], ...]:
        return self.recorder.rows_out()

    @property
    def events(self) -> list[Event]:
        return self.recorder.events

    @property
    def inspections(self) -> list[Inspection]:
        return self.recorder.inspections

    @property
    def warnings(self) -> list[str]:
        return self.recorder.warnings


def active_tracer() -> Tracer | None:
    """The installed tracer, if any."""
    return _ACTIVE
