"""Running a pipeline built in a test through translate and the pipeline walk."""

from __future__ import annotations

import inspect
import textwrap
from typing import Callable

from magicpush_lab.capture.trace import Event, Trace, Udf
from magicpush_lab.pushdown import WalkResult, late_filter, push_down
from magicpush_lab.translate.dataflow import translate_event


def plan_event(i: int, op: str, df, inputs=(), udfs=()) -> Event:
    return Event(id=i, op=op, inputs=tuple(inputs), plan=df._jdf.queryExecution().analyzed().toJSON(),
                 udfs=tuple(udfs))


def udf_record(name: str, fn: Callable, deterministic: bool = True, return_type: str = "int") -> Udf:
    return Udf(name, textwrap.dedent(inspect.getsource(fn)), deterministic, return_type)


def run_engine(sources: list, final, udfs=()) -> WalkResult:
    """Translate `final` (sources marked as source events) and push its late filter."""
    events = [plan_event(i, "createDataFrame", s) for i, s in enumerate(sources)]
    events.append(plan_event(len(sources), "filter", final, range(len(sources)), udfs))
    trace = Trace(events=tuple(events))
    plan = translate_event(trace, len(sources))
    late = late_filter(plan)
    assert late is not None, "the test pipeline must end in a filter"
    return push_down(late)
