"""The trace: what the kernel recorded about a notebook's PySpark dataflow.

This is the contract between the kernel side (`capture/`, `kernel/`) and the
engine (`translate/` onwards). It is plain JSON so that it can cross the
kernel/server boundary; `Trace.from_json(trace.to_json())` round-trips.

A *cell* is one execution of notebook code (re-running a cell adds a new one).
An *event* is one DataFrame-producing call. Its `site` points into the source
of the cell that contains the call's code (for a helper function defined in an
earlier cell, that earlier cell), with positions as Python's `ast` reports
them: 1-based lines, 0-based UTF-8 columns, relative to the cell source.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from magicpush_lab.capture.plan_store import PlanStore, validate

#: the most plan records a trace may hold (a notebook's plans, every subtree once, stay far below)
MAX_PLAN_RECORDS = 2_000_000
#: the most events a trace may hold
MAX_EVENTS = 200_000


class TraceTooLarge(ValueError):
    """A trace over the limits on its size: refused before any work is done on it."""


# ops that make a DataFrame from outside the notebook's DataFrames (the op's first part)
SOURCE_OPS = frozenset({"read", "table", "createDataFrame", "range", "sql", "unknown"})
# spark.sql(...) and spark.table(name) read temp views: DataFrames of the notebook
VIEW_READERS = frozenset({"sql", "table"})
# a catalog table read inside the SQL text of a spark.sql call: not a call of its own, so the
# engine gives it an event (translate/dataflow.with_sql_tables) with a negative id, its site the
# query's, its one arg the table's name; the kernel has no DataFrame for it and reads the table
SQL_TABLE_OP = "sql.table"


def is_source_op(op: str) -> bool:
    """Whether an event's op makes a DataFrame from outside the notebook's DataFrames.

    >>> is_source_op("read.parquet"), is_source_op("filter")
    (True, False)
    """
    return op.split(".", 1)[0] in SOURCE_OPS


@dataclass(frozen=True)
class Cell:
    """One execution of a cell: `execution_count` orders executions."""

    execution_count: int
    source: str
    cell_id: str | None = None
    # the cell raised: the error's one line (errortext.error_line); cells after it have not run
    error: str | None = None


@dataclass(frozen=True)
class Site:
    """Where a call is in the user's code: the cell execution and the call expression's span."""

    execution_count: int
    lineno: int
    col_offset: int
    end_lineno: int
    end_col_offset: int


@dataclass(frozen=True)
class Udf:
    """A Python UDF referenced by an event's plan, as it was defined when the event ran.

    name: the function's name in the trace: Spark's name for it (its function's `__name__`),
        with `#2`, `#3`... for a second, third function of that name (capture/udfs.py).
    calls: the result ids of the plan's PythonUDF expressions that call this function, where
        its name in the trace is not Spark's (a call whose id is not listed is the function
        Spark's name has in the trace).
    """

    name: str
    source: str | None
    deterministic: bool = True
    return_type: str = "other"
    kind: str = "python"  # "python" | "pandas"
    # pandas UDFs: the session hands integer columns over as nullable Int series with pd.NA
    # (spark.sql.execution.pythonUDF.pandas.preferIntExtensionDtype), which compare differently
    int_extension_dtype: bool = False
    # (global name, event id): a list the UDF reads that is the `collect()` of that event's DataFrame
    side_inputs: tuple[tuple[str, int], ...] = ()
    calls: tuple[int, ...] = ()

    @property
    def function_name(self) -> str:
        """The name Spark's plans (and the user's code) give the function.

        >>> Udf("<lambda>#2", None).function_name
        '<lambda>'
        """
        return self.name.split("#", 1)[0]


@dataclass(frozen=True)
class Event:
    """One DataFrame-producing call.

    op: the PySpark API, e.g. "read.parquet", "createDataFrame", "filter", "withColumn", "join".
    inputs: ids of the events that produced the DataFrames this call consumed.
    plan: Spark's analyzed logical plan of the result: the id of its root record in the trace's
        `plans` (capture/plan_store.py; `Trace.plan_json` gives Spark's own JSON form), None when
        it could not be read.
    columns: the result's (name, type) columns, for the DataFrames variables hold (others: ()).
    """

    id: int
    op: str
    inputs: tuple[int, ...]
    plan: int | None
    site: Site | None = None
    args: tuple[str, ...] = ()
    columns: tuple[tuple[str, str], ...] = ()
    udfs: tuple[Udf, ...] = ()


@dataclass(frozen=True)
class Inspection:
    """An action or look at a DataFrame (count, show, collect, toPandas...): a side path, not the pipeline."""

    event: int
    action: str
    site: Site | None = None


@dataclass(frozen=True)
class Trace:
    cells: tuple[Cell, ...] = ()
    events: tuple[Event, ...] = ()
    inspections: tuple[Inspection, ...] = ()
    # variable name -> id of the event whose DataFrame it holds, at the end of the last cell
    variables: dict[str, int] = field(default_factory=dict)
    # the events' plans, every distinct subtree once
    plans: PlanStore = field(default_factory=PlanStore)
    version: int = 2

    def plan_json(self, eid: int) -> list[dict[str, Any]] | None:
        """Event `eid`'s analyzed plan in Spark's flat JSON form, when the trace has it."""
        event = self.event(eid)
        return self.plans.flat(event.plan) if event is not None and event.plan is not None else None

    def ancestors(self, eid: int) -> frozenset[int]:
        """The event `eid` and every event it is computed from, by the traced inputs.

        >>> ev = lambda i, *inputs: Event(id=i, op="x", inputs=inputs, plan="")
        >>> sorted(Trace(events=(ev(0), ev(1, 0), ev(2), ev(3, 1))).ancestors(3))
        [0, 1, 3]
        """
        by_id = {e.id: e for e in self.events}
        seen: set[int] = set()
        stack = [eid]
        while stack:
            cur = stack.pop()
            if cur in seen or cur not in by_id:
                continue
            seen.add(cur)
            stack.extend(by_id[cur].inputs)
        return frozenset(seen)

    def event(self, eid: int | None) -> Event | None:
        """The event with id `eid`, if the trace has it."""
        if eid is None:
            return None
        by_id = self.__dict__.get("_by_id")
        if by_id is None:  # frozen: the index is cached beside the fields, not one of them
            by_id = {e.id: e for e in self.events}
            object.__setattr__(self, "_by_id", by_id)
        return by_id.get(eid)

    def code_at(self, site: Site | None) -> str | None:
        """The source text a site points at (its call expression), if the trace has its cell.

        >>> t = Trace(cells=(Cell(3, "x = 1\\ndf = src.filter(c)"),))
        >>> t.code_at(Site(3, 2, 5, 2, 18))
        'src.filter(c)'
        """
        if site is None:
            return None
        cell = next((c for c in reversed(self.cells) if c.execution_count == site.execution_count), None)
        if cell is None:
            return None
        lines = cell.source.splitlines(keepends=True)
        if not 1 <= site.lineno <= site.end_lineno <= len(lines):
            return None

        def offset(line: int, col: int) -> int:  # ast columns count UTF-8 bytes
            return sum(len(x.encode()) for x in lines[: line - 1]) + col

        data = cell.source.encode()
        return data[offset(site.lineno, site.col_offset):offset(site.end_lineno, site.end_col_offset)].decode(
            errors="replace")

    def consumers(self) -> dict[int, tuple[int, ...]]:
        """Event id -> the events made from its DataFrame, in trace order.

        >>> ev = lambda i, *inputs: Event(id=i, op="x", inputs=inputs, plan="")
        >>> Trace(events=(ev(0), ev(1, 0), ev(2, 0, 1))).consumers()
        {0: (1, 2), 1: (2,)}
        """
        out: dict[int, list[int]] = {}
        for e in self.events:
            for i in e.inputs:
                out.setdefault(i, []).append(e.id)
        return {k: tuple(v) for k, v in out.items()}

    def variable_of(self, eid: int) -> str | None:
        """The notebook variable holding event `eid`'s DataFrame at the end of the last cell."""
        names = [n for n, e in self.variables.items() if e == eid]
        return names[0] if names else None

    def runs_of(self, site: Site | None) -> list[int]:
        """Events and inspections (as -1 - index) made by the code at `site`: more than one when
        it sits in a loop or a function called several times, and an edit there changes every
        one of them."""
        if site is None:
            return []
        runs = self.__dict__.get("_runs")
        if runs is None:  # frozen: the index is cached beside the fields, not one of them
            runs = {}
            for e in self.events:
                if e.op != SQL_TABLE_OP:  # part of its query's run, not a run of its own
                    runs.setdefault(e.site, []).append(e.id)
            for k, i in enumerate(self.inspections):
                runs.setdefault(i.site, []).append(-1 - k)
            object.__setattr__(self, "_runs", runs)
        return list(runs.get(site, ()))

    def to_json(self) -> dict[str, Any]:
        return {"cells": [asdict(c) for c in self.cells], "events": [asdict(e) for e in self.events],
                "inspections": [asdict(i) for i in self.inspections], "variables": dict(self.variables),
                "plans": self.plans.records(), "version": self.version}

    def dumps(self) -> str:
        return json.dumps(self.to_json())

    @staticmethod
    def from_json(data: dict[str, Any], max_records: int | None = None) -> "Trace":
        """Parse a trace; raises ValueError with the offending field on malformed input. A plan
        given as Spark's JSON text (a version 1 trace) is read into the store."""
        if not isinstance(data, dict):
            raise ValueError("trace must be a JSON object")
        max_records = MAX_PLAN_RECORDS if max_records is None else max_records
        records, events_json = data.get("plans", []), data.get("events", ())
        if isinstance(records, list) and len(records) > max_records:
            raise TraceTooLarge(f"{len(records)} plan records, more than the {max_records} allowed")
        if isinstance(events_json, list) and len(events_json) > MAX_EVENTS:
            raise TraceTooLarge(f"{len(events_json)} events, more than the {MAX_EVENTS} allowed")
        try:
            plans = PlanStore(validate(records, max_records))
            cells = tuple(Cell(**c) for c in data.get("cells", ()))
            events = tuple(
                Event(
                    id=e["id"],
                    op=e["op"],
                    inputs=tuple(e.get("inputs", ())),
                    plan=_plan_id(e["plan"], plans),
                    site=Site(**e["site"]) if e.get("site") else None,
                    args=tuple(e.get("args", ())),
                    columns=tuple(tuple(c) for c in e.get("columns", ())),
                    udfs=tuple(_udf(u) for u in e.get("udfs", ())),
                )
                for e in data.get("events", ())
            )
            inspections = tuple(
                Inspection(
                    event=i["event"],
                    action=i["action"],
                    site=Site(**i["site"]) if i.get("site") else None,
                )
                for i in data.get("inspections", ())
            )
            variables = {str(k): int(v) for k, v in dict(data.get("variables", {})).items()}
        except (KeyError, TypeError, json.JSONDecodeError) as err:
            raise ValueError(f"malformed trace: {err}") from err
        return Trace(cells, events, inspections, variables, plans, int(data.get("version", 1)))


def _plan_id(plan: Any, plans: PlanStore) -> int | None:
    """An event's plan field as a record id: an id of the store, or Spark's JSON text (read in)."""
    if plan is None:
        return None
    if isinstance(plan, str):
        return plans.add_json(plan)
    if isinstance(plan, int) and not isinstance(plan, bool) and 0 <= plan < len(plans):
        return plan
    raise ValueError(f"an event's plan {plan!r:.40} is not a record of the trace")


def _udf(u: dict[str, Any]) -> Udf:
    """A UDF record from JSON, whose lists become the tuples the dataclass holds."""
    side = tuple((str(name), int(event)) for name, event in u.get("side_inputs", ()))
    return Udf(**{**u, "side_inputs": side, "calls": tuple(int(c) for c in u.get("calls", ()))})
