"""Running a pipeline built in a test through translate and the pipeline walk."""

from __future__ import annotations

import inspect
import textwrap
from typing import Callable

from magicpush_lab.capture.classic import ClassicBackend
from magicpush_lab.capture.plan_store import PlanStore
from magicpush_lab.capture.trace import Event, Trace, Udf
from magicpush_lab.pushdown import WalkResult, late_filter, push_down
from magicpush_lab.pipeline import translate

from . import connect_parity


def backend_of(df):
    """The tracer's backend for `df`'s kind of session: the engine tests run on both."""
    from magicpush_lab.measure import is_connect

    if is_connect(df):
        from magicpush_lab.capture.connect import ConnectBackend

        return ConnectBackend()
    return ClassicBackend()


class Plans:
    """The plans of a test's events, read into one store as the tracer reads them (by the backend
    of the session the test's DataFrames belong to)."""

    def __init__(self) -> None:
        self.store = PlanStore()
        self._backend = None
        self._encoder = None

    def event(self, i: int, op: str, df, inputs=(), udfs=()) -> Event:
        if self._backend is None:
            self._backend = backend_of(df)
            self._encoder = self._backend.plan_encoder(self.store)
        plan = self._encoder.encode(self._backend.plan_handle(df))
        return Event(id=i, op=op, inputs=tuple(inputs), plan=plan, udfs=tuple(udfs))


class SessionUdf:
    """A Python UDF made for the session in use when it is applied: the same case runs on a
    classic and on a Connect session, whose UDF objects differ (a UDF made at import is classic).

    Options are F.udf's (`useArrow`): a UDF made before the session exists is pickled rather than
    Arrow-optimised, which converts results differently; the cases that depend on it say so.
    """

    def __init__(self, fn: Callable, return_type, deterministic: bool = True, **options) -> None:
        self.fn, self.return_type, self.deterministic, self.options = fn, return_type, deterministic, options

    def asNondeterministic(self) -> "SessionUdf":  # noqa: N802 - PySpark's name
        return SessionUdf(self.fn, self.return_type, False, **self.options)

    def __call__(self, *columns):
        from pyspark.sql import functions as F

        made = F.udf(self.fn, self.return_type, **self.options)
        return (made if self.deterministic else made.asNondeterministic())(*columns)


def udf_record(name: str, fn: Callable, deterministic: bool = True, return_type: str = "int") -> Udf:
    return Udf(name, textwrap.dedent(inspect.getsource(fn)), deterministic, return_type)


def translate_pipeline(sources: list, final, udfs=()):
    """The IR of `final`, with `sources` marked as source events."""
    plans = Plans()
    events = [plans.event(i, "createDataFrame", s) for i, s in enumerate(sources)]
    events.append(plans.event(len(sources), "filter", final, range(len(sources)), udfs))
    return connect_parity.read(translate(Trace(events=tuple(events), plans=plans.store), len(sources)))


def run_engine(sources: list, final, udfs=()) -> WalkResult:
    """Translate `final` (sources marked as source events) and push its late filter."""
    plan = translate_pipeline(sources, final, udfs)
    late = late_filter(plan)
    assert late is not None, "the test pipeline must end in a filter"
    return push_down(late)


def run_engine_with_notes(sources: list, steps: list, final, udfs=()) -> tuple[WalkResult, list[str]]:
    """run_engine with each of `steps` (the DataFrames between the sources and `final`, the
    first made from the sources, each next from the one before, all calling `udfs`) its own
    event, as the tracer records them; and the notes the user reads for what was refused
    (rewrite/notes.step_notes: the step, each reason, and what its Python UDFs do that the model
    does not read)."""
    from magicpush_lab.rewrite.notes import step_notes

    plans = Plans()
    events = [plans.event(i, "createDataFrame", s) for i, s in enumerate(sources)]
    inputs: tuple[int, ...] = tuple(range(len(sources)))
    for step in steps:
        events.append(plans.event(len(events), "withColumn", step, inputs, udfs))
        inputs = (len(events) - 1,)
    events.append(plans.event(len(events), "filter", final, inputs, udfs))
    trace = Trace(events=tuple(events), plans=plans.store)
    plan = connect_parity.read(translate(trace, len(events) - 1))
    late = late_filter(plan)
    assert late is not None, "the test pipeline must end in a filter"
    walk = push_down(late)
    return walk, step_notes(trace, walk.refusals, plan)


def bag(df) -> list:
    """A DataFrame's rows as a sorted list: equal bags compare equal."""
    return sorted((tuple("NaN" if v != v else v for v in r) for r in df.collect()), key=repr)  # NaN != NaN


def rewritten_pipeline(walk: WalkResult, sources: list, body: Callable, late: Callable, superset: bool):
    """The pipeline with each pushed predicate applied to its source; the late filter stays for superset."""
    from magicpush_lab.rewrite.pyspark_column import to_column

    pushed_to = {p.source.origin: p.predicate for p in walk.pushed}
    filtered = [s.filter(to_column(pushed_to[i])) if i in pushed_to else s for i, s in enumerate(sources)]
    out = body(filtered)
    return out.filter(late()) if superset else out


def check_pushdown(walk: WalkResult, sources: list, body: Callable, late: Callable, expect: str | None,
                   predicates=None, hides_errors: bool | None = None, not_pushed: str | None = None) -> None:
    """What a pipeline case asserts: nothing pushed when `expect` is None; else every push of the
    expected kind (and predicates, error flag), and the rewritten pipeline giving the original's bag."""
    from magicpush_lab.verify.verdict import SUPERSET

    if expect is None:
        assert walk.pushed == [], f"must not push, pushed {[str(p.predicate) for p in walk.pushed]}"
        return
    assert walk.pushed, f"expected a pushdown; refusals: {walk.refusals}"
    assert {p.kind for p in walk.pushed} == {expect}
    if predicates is not None:
        assert [str(p.predicate) for p in walk.pushed] == list(predicates), [str(p.predicate) for p in walk.pushed]
    if not_pushed is not None:
        assert all(str(p.predicate) != not_pushed for p in walk.pushed)
    if hides_errors is not None:
        assert all(p.may_hide_errors == hides_errors for p in walk.pushed)
    rewritten = rewritten_pipeline(walk, sources, body, late, expect == SUPERSET)
    original = body(sources).filter(late())
    assert bag(rewritten) == bag(original)


def pandas_udf_record(name: str, fn: Callable, return_type: str = "long") -> Udf:
    """What the tracer records for a scalar pandas UDF made from `fn` (its source, kind pandas)."""
    return Udf(name, textwrap.dedent(inspect.getsource(fn)), True, return_type, "pandas")


# ----------------------------------------------------------------------------- collected tables

def side_udf_record(name: str, fn: Callable, events: tuple[tuple[str, int], ...],
                    return_type: str = "int") -> Udf:
    """A UDF that reads collected lists: (global name, event id of the collected DataFrame)."""
    return Udf(name, textwrap.dedent(inspect.getsource(fn)), True, return_type, "python", side_inputs=events)


def translate_collected(sources: list, collected: list, final, udfs=()):
    """`translate_pipeline` with DataFrames whose collect() the UDFs loop over: they are the events
    after the sources, in order (so a UDF record names `len(sources) + i` for `collected[i]`)."""
    plans = Plans()
    events = [plans.event(i, "createDataFrame", s) for i, s in enumerate(sources)]
    events += [plans.event(len(sources) + i, "select", c) for i, c in enumerate(collected)]
    last = len(events)
    events.append(plans.event(last, "filter", final, range(len(sources)), udfs))
    return connect_parity.read(translate(Trace(events=tuple(events), plans=plans.store), last))


def run_engine_collected(sources: list, collected: list, final, udfs=()) -> WalkResult:
    """`run_engine` over `translate_collected`."""
    plan = translate_collected(sources, collected, final, udfs)
    late = late_filter(plan)
    assert late is not None, "the test pipeline must end in a filter"
    return push_down(late)


def with_globals(fn: Callable, **names) -> Callable:
    """`fn` with its globals replaced by `names`: the same code reading another collected list."""
    import builtins
    import types

    return types.FunctionType(fn.__code__, {"__builtins__": builtins, **names}, fn.__name__)
