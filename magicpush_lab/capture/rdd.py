"""RDD round trips: `df.rdd.map(f)...toDF(schema)` and `spark.createDataFrame(rdd, schema)`.

Spark's plan of the DataFrame made back from an RDD is a leaf (`LogicalRDD`): it does not say
which DataFrame the rows came from, nor what was done to them. The tracer records it here: each
RDD made from a traced DataFrame's `.rdd` by `map`, `flatMap`, `filter`, `mapValues` or
`reduceByKey` (and `cache`, `repartition`...) remembers its parent and the step, and a DataFrame made of such an RDD
is an event of op `rdd.toDF` whose input is the DataFrame the rows came from, and whose one
argument is the steps as JSON (`STEPS_PREFIX`): each function's source with what it reads from
the notebook in front of it (udfs.py), the schema the rows were given and whether Spark inferred
it. translate/rdd.py reads that back as operators over the DataFrame's rows.

Recording a step keeps a weak reference to the new RDD and a reference to the function; the
functions' sources are read once, when the DataFrame is made. No job runs, nothing is pickled.
A DataFrame made of an RDD whose lineage was not traced stays a source, as before.
"""

from __future__ import annotations

import functools
import json
import sys
import threading
import weakref
from typing import Any, Callable, Iterator

from magicpush_lab.capture.hooks import depth, inside
from magicpush_lab.capture.udfs import function_source, with_captured_constants

#: how an `rdd.toDF` event's argument holding the steps starts
STEPS_PREFIX = "rdd-steps:"
OP = "rdd.toDF"

# RDD methods whose function is read: each element -> one element, a list of them, or a test
READ_STEPS = ("map", "flatMap", "filter", "mapValues", "flatMapValues")
# RDD methods that fold each key's values with the function read: two values -> one
FOLD_STEPS = ("reduceByKey",)
# RDD methods that keep every element once: the bag of rows is the same
SAME_ROWS = ("repartition", "coalesce", "sortBy", "sortByKey")
# RDD methods whose result is not a function of one element: recorded so that the reason is given
OTHER_STEPS = ("distinct", "groupByKey", "aggregateByKey", "combineByKey", "foldByKey",
               "mapPartitions", "mapPartitionsWithIndex", "sample", "union", "join", "leftOuterJoin",
               "subtract", "intersection", "zipWithIndex", "zipWithUniqueId", "keyBy", "cartesian",
               "groupBy", "pipe", "glom")

_MAX_STEPS = 32


class RddLineage:
    """The traced RDDs: each one's parent (another RDD, or the event of the DataFrame it was
    taken from) and the step that made it."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        # id(RDD) -> (weak reference, ("frame", event) | ("step", the parent's entry, method, function)):
        # a step holds its parent's lineage itself, since Spark keeps no Python reference to the
        # parent of an RDD made by a shuffle (distinct, a map before it, may be collected)
        self._made: dict[int, tuple[Any, tuple]] = {}

    def _keep(self, rdd: Any, how: tuple) -> None:
        key = id(rdd)

        def gone(ref: Any) -> None:
            with self._lock:
                if self._made.get(key, (None,))[0] is ref:
                    del self._made[key]

        try:
            ref = weakref.ref(rdd, gone)
        except TypeError:
            return
        with self._lock:
            self._made[key] = (ref, how)

    def taken(self, df_event: int, rdd: Any) -> None:
        """`rdd` is `.rdd` of the DataFrame of `df_event`."""
        self._keep(rdd, ("frame", df_event))

    def stepped(self, parent: Any, method: str, func: Any, result: Any) -> None:
        """`result = parent.<method>(func)`; kept only when `parent` is traced."""
        before = self._known(parent)
        if result is parent or before is None or _length(before) >= _MAX_STEPS:
            return
        self._keep(result, ("step", before, method, func))

    def _known(self, rdd: Any) -> tuple | None:
        with self._lock:
            found = self._made.get(id(rdd))
        return found[1] if found is not None and found[0]() is rdd else None

    def lineage(self, rdd: Any) -> tuple[int, list[tuple[str, Any]]] | None:
        """(the DataFrame's event, the steps from it to `rdd` in order), when traced."""
        steps: list[tuple[str, Any]] = []
        how = self._known(rdd)
        while how is not None:
            if how[0] == "frame":
                return how[1], steps[::-1]
            _, how, method, func = how
            steps.append((method, func))
        return None


def _length(how: tuple) -> int:
    n = 0
    while how[0] == "step":
        n, how = n + 1, how[1]
    return n


def steps_json(steps: list[tuple[str, Any]], schema: Any, explicit: bool, verify: bool) -> str:
    """The argument of an `rdd.toDF` event: the steps, each with its function's recorded source,
    and the schema (Spark's JSON of it) the rows were given."""
    out = []
    for method, func in steps:
        source = function_source(func) if callable(func) else None
        out.append({"method": method, "name": getattr(func, "__name__", None) if callable(func) else None,
                    "source": with_captured_constants(source, func) if source is not None else None})
    try:
        schema_json = json.loads(schema.json()) if schema is not None else None
    except Exception:  # noqa: BLE001 - a schema that cannot be written out: the step is opaque
        schema_json = None
    return STEPS_PREFIX + json.dumps({"steps": out, "schema": schema_json, "explicit": explicit, "verify": verify})


def patches(tracer: Any, lineage: RddLineage) -> Iterator[tuple[type, str, Callable[[Any], Any]]]:
    """(class, method, wrapper maker) for hooks.Hooks to install: the steps of RDDs, `.rdd`, and
    the session's `createDataFrame` (which `RDD.toDF` calls)."""
    try:
        from pyspark.core.rdd import RDD
    except ImportError:  # PySpark without RDDs (Spark Connect only): nothing to trace
        return
    classes = tracer.backend.classes()
    yield classes.dataframe, "rdd", _rdd_property(tracer, lineage)
    for method in READ_STEPS + FOLD_STEPS + SAME_ROWS + OTHER_STEPS:
        yield RDD, method, _step(tracer, lineage, method)
    yield classes.session, "createDataFrame", _create(tracer, lineage)


def _rdd_property(tracer: Any, lineage: RddLineage) -> Callable[[Any], Any]:
    def make(original: Any) -> Any:
        def rdd(df: Any) -> Any:
            result = original.__get__(df, type(df))
            try:
                if tracer.recording:
                    lineage.taken(tracer.event_of(df), result)
            except Exception as err:  # recording must never break the user's call
                tracer.warn(f"rdd lineage: {type(err).__name__}: {err}")
            return result

        return property(rdd, doc=getattr(original, "__doc__", None))

    return make


def _step(tracer: Any, lineage: RddLineage, method: str) -> Callable[[Any], Any]:
    def make(original: Any) -> Any:
        @functools.wraps(original)
        def step(rdd: Any, *args: Any, **kwargs: Any) -> Any:
            outer = depth() == 0
            with inside():  # mapValues calls map, createDataFrame maps its rows: not the user's steps
                result = original(rdd, *args, **kwargs)
            try:
                if outer and tracer.recording:
                    func = args[0] if args and method in READ_STEPS + FOLD_STEPS else method
                    lineage.stepped(rdd, method, func, result)
            except Exception as err:
                tracer.warn(f"rdd {method}: {type(err).__name__}: {err}")
            return result

        return step

    return make


def _create(tracer: Any, lineage: RddLineage) -> Callable[[Any], Any]:
    def make(original: Any) -> Any:
        @functools.wraps(original)
        def create(session: Any, data: Any, schema: Any = None, *args: Any, **kwargs: Any) -> Any:
            found = None
            try:
                if tracer.recording and depth() == 0:
                    found = lineage.lineage(data)
            except Exception as err:
                tracer.warn(f"rdd lineage: {type(err).__name__}: {err}")
            if found is None:
                return original(session, data, schema, *args, **kwargs)
            with inside():  # the source event the hooks would record is this one, with its input
                result = original(session, data, schema, *args, **kwargs)
            try:
                event, steps = found
                verify = kwargs.get("verifySchema", args[1] if len(args) > 1 else True)
                explicit = schema is not None and not isinstance(schema, (list, tuple))
                caller = sys._getframe(1)
                tracer.recorder.add_event(OP, (event,), result, tracer.site_of(caller),
                                          (steps_json(steps, result.schema, explicit, bool(verify)),))
            except Exception as err:
                tracer.warn(f"rdd toDF: {type(err).__name__}: {err}")
            return result

        return create

    return make
