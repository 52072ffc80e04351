"""The wrappers tracing puts around a PySpark API: which methods are steps, looks or groupings,
and what each wrapper hands the recorder.

Which methods are wrapped is data (`DATAFRAME_OPS`, `READER_OPS`, ...), so more API can be
covered by adding table entries. A wrapper never changes what user code sees: the original
method runs, and any failure of the recording is swallowed into the tracer's warnings.

>>> op_name("filter", (None, "v > 1"), {}), op_name("__getitem__", (None, ["a"]), {})
('filter', 'select')
"""

from __future__ import annotations

import functools
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Protocol


class Tracing(Protocol):
    """What the wrappers report to (capture/tracer.Tracer)."""

    backend: Any
    recorder: Any
    udfs: Any

    @property
    def active(self) -> bool: ...

    @property
    def recording(self) -> bool: ...

    def should_record(self, caller: Any) -> bool: ...

    def record_step(self, op: str, receiver: str, args: tuple, kwargs: dict, result: Any, caller: Any,
                    method: str | None = None) -> None: ...

    def record_inspection(self, action: str, df: Any, caller: Any) -> None: ...

    def warn(self, message: str) -> None: ...


def _getitem_op(args: tuple, kwargs: dict) -> str | None:
    from pyspark.sql import Column

    item = args[1] if len(args) > 1 else None
    if isinstance(item, Column):
        return "filter"
    if isinstance(item, (list, tuple)):
        return "select"
    return None


# DataFrame method -> op name. A callable decides from the call's arguments;
# returning None means "not a pipeline step" (the call is passed through).
DATAFRAME_OPS: dict[str, Any] = {name: name for name in (
    "filter", "where", "withColumn", "withColumns", "select", "selectExpr", "drop", "withColumnRenamed",
    "withColumnsRenamed", "join", "crossJoin", "union", "unionAll", "unionByName", "intersect",
    "intersectAll", "subtract", "exceptAll", "distinct", "dropDuplicates", "drop_duplicates", "dropna",
    "fillna", "replace", "limit", "offset", "orderBy", "sort", "sortWithinPartitions", "repartition",
    "repartitionByRange", "coalesce", "alias", "toDF", "agg", "sample", "hint", "unpivot", "melt",
    "withWatermark", "withMetadata", "to",
    # not analysed (their plans become barriers), but recorded so the dataflow keeps its lineage:
    # unrecorded, their result would look like a new source with no place in the notebook
    "mapInPandas", "mapInArrow", "observe", "sampleBy", "randomSplit", "dropDuplicatesWithinWatermark",
    "localCheckpoint", "checkpoint", "crosstab", "freqItems", "transpose", "zipWithIndex", "zip", "repartitionById",
    "lateralJoin", "nearestByJoin",
)}
DATAFRAME_OPS["__getitem__"] = _getitem_op

# GroupedData method -> op; the input is the DataFrame groupBy was called on.
GROUPED_OPS: dict[str, Any] = {n: f"groupBy.{n}" for n in (
    "agg", "count", "sum", "avg", "mean", "min", "max", "applyInPandas", "apply", "applyInArrow")}

# groupBy(...).cogroup(groupBy(...)) method -> op; the inputs are both grouped DataFrames.
COGROUPED_OPS: dict[str, Any] = {n: f"cogroup.{n}" for n in ("applyInPandas", "applyInArrow")}

READER_OPS: dict[str, Any] = {n: f"read.{n}" for n in ("parquet", "csv", "json", "orc", "table", "load", "text")}

SESSION_OPS: dict[str, Any] = {n: n for n in ("createDataFrame", "table", "range", "sql")}

# Calls that make the GroupedData (or cogrouped ops) a grouped step consumes: not steps
# themselves, but remembered with their arguments so that the step can be re-run
# (magicpush_lab/rebuild.py).
GROUPING_METHODS = ("groupBy", "groupby", "cube", "rollup", "groupingSets")
GROUPED_GROUPING_METHODS = ("pivot", "cogroup")

# Actions and looks: recorded as inspections, never as pipeline steps.
# Those that hand rows, or values computed from every row (a quantile, a correlation, a fitted
# model: capture/ml.py), to Python, or write them where they can be read again, so that notebook
# code can make new DataFrames or columns of them:
ROWS_OUT = frozenset({"collect", "toPandas", "take", "head", "first", "tail", "toLocalIterator", "toArrow",
                      "approxQuantile", "corr", "cov", "fit", "write", "writeStream", "writeTo", "toJSON"})
INSPECTIONS = ("count", "show", "collect", "toPandas", "take", "head", "first", "printSchema", "describe",
               "summary", "tail", "toLocalIterator", "isEmpty", "foreach", "foreachPartition", "toArrow",
               "explain", "approxQuantile", "corr", "cov", "writeTo", "toJSON")
# calls that name a DataFrame for SQL text and spark.table: not steps, but what they name is held
VIEW_NAMERS = ("createTempView", "createOrReplaceTempView", "createGlobalTempView", "createOrReplaceGlobalTempView",
               "registerTempTable")
# properties whose writer sends every row out of Spark (files, tables, streams)
WRITERS = ("write", "writeStream")


def op_name(method: str, args: tuple, kwargs: dict, table: Mapping[str, Any] | None = None) -> str | None:
    """The op a call of `method` records, or None if it records none."""
    spec = (DATAFRAME_OPS if table is None else table).get(method)
    if spec is None or isinstance(spec, str):
        return spec
    return spec(args, kwargs)


_local = threading.local()


def depth() -> int:
    """How many wrapped calls this thread is inside: above 0, PySpark is calling itself."""
    return getattr(_local, "depth", 0)


@contextmanager
def inside() -> Iterator[None]:
    _local.depth = depth() + 1
    try:
        yield
    finally:
        _local.depth -= 1


class Call(NamedTuple):
    """A traced call as it was made: enough to make it again on other inputs.

    receiver: "dataframe", "grouped", "cogrouped" or "source" (as in `Hooks._step`);
    args[0] is the object the method was called on, the rest are the live arguments
    (references: the Columns, DataFrames and Python values the notebook passed).
    """

    receiver: str
    method: str
    args: tuple
    kwargs: dict


class Hooks:
    """The wrapped methods of one backend's classes, each reporting to `tracer`."""

    def __init__(self, tracer: Tracing) -> None:
        self.tracer = tracer
        self._patches: list[tuple[type, str, bool, Any]] = []

    @property
    def installed(self) -> bool:
        return bool(self._patches)

    def install(self) -> None:
        backend = self.tracer.backend
        for classes in (backend.all_classes() if hasattr(backend, "all_classes") else [backend.classes()]):
            self._install(classes)

    def _install(self, classes: Any) -> None:
        for name, spec in DATAFRAME_OPS.items():
            self._patch(classes.dataframe, name, self._step(name, spec, "dataframe"))
        for name in INSPECTIONS:
            self._patch(classes.dataframe, name, self._inspection(name))
        for name, spec in GROUPED_OPS.items():
            self._patch(classes.grouped, name, self._step(name, spec, "grouped"))
        for name in GROUPING_METHODS:
            self._patch(classes.dataframe, name, self._grouping(name, "dataframe"))
        for name in GROUPED_GROUPING_METHODS:
            self._patch(classes.grouped, name, self._grouping(name, "grouped"))
        self._patch(classes.dataframe, "rdd", self._rdd())
        for name in VIEW_NAMERS:
            self._patch(classes.dataframe, name, self._view_namer(name))
        for name in WRITERS:
            self._patch(classes.dataframe, name, self._writer(name))
        if classes.cogrouped is not None:
            for name, spec in COGROUPED_OPS.items():
                self._patch(classes.cogrouped, name, self._step(name, spec, "cogrouped"))
        for name, spec in READER_OPS.items():
            self._patch(classes.reader, name, self._step(name, spec, "source"))
        for name, spec in SESSION_OPS.items():
            self._patch(classes.session, name, self._step(name, spec, "source"))
        self._patch(classes.udf, "__init__", self._udf_defined())
        self._patch(classes.udf, "_create_judf", self._udf_pickled())
        self._patch(classes.udf, "__call__", self._udf_called())

    def add(self, owner: type, name: str, make: Callable[[Any], Any]) -> None:
        """Wrap one more method (a registration of another part of capture/, such as rdd.py);
        put back with the others by `uninstall`."""
        self._patch(owner, name, make)

    def uninstall(self) -> None:
        """Put every original method back."""
        for owner, name, had_own, original in reversed(self._patches):
            if had_own:
                setattr(owner, name, original)
            else:
                try:
                    delattr(owner, name)
                except AttributeError:
                    pass
        self._patches.clear()

    def _patch(self, owner: type, name: str, make: Callable[[Any], Any]) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return
        had_own = name in owner.__dict__
        raw = owner.__dict__[name] if had_own else original
        wrapper = make(original)
        setattr(owner, name, wrapper)
        self._patches.append((owner, name, had_own, raw))

    # -- wrappers -----------------------------------------------------------
    def _step(self, method: str, spec: Any, receiver: str) -> Callable[[Any], Any]:
        tracer = self.tracer

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def step(*args: Any, **kwargs: Any) -> Any:
                caller = sys._getframe(1)
                if not tracer.should_record(caller):
                    return original(*args, **kwargs)
                with inside():
                    result = original(*args, **kwargs)
                try:
                    op = spec if isinstance(spec, str) else spec(args, kwargs)
                    if op is not None:
                        tracer.record_step(op, receiver, args, kwargs, result, caller, method)
                except Exception as err:  # recording must never break the user's call
                    tracer.warn(f"{method}: {type(err).__name__}: {err}")
                return result

            return step

        return make

    def _grouping(self, method: str, receiver: str) -> Callable[[Any], Any]:
        """Remember how a GroupedData was made; it is not a DataFrame, so no event."""
        tracer = self.tracer

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def group(*args: Any, **kwargs: Any) -> Any:
                result = original(*args, **kwargs)
                try:
                    if tracer.should_record(sys._getframe(1)):
                        tracer.recorder.remember_grouping(result, Call(receiver, method, args, kwargs))
                except Exception as err:
                    tracer.warn(f"{method}: {type(err).__name__}: {err}")
                return result

            return group

        return make

    def _view_namer(self, method: str) -> Callable[[Any], Any]:
        """`df.createOrReplaceTempView(name)`: the view keeps `df` alive for the SQL that reads
        it, so the trace keeps its event (the DataFrame is often made and named in one line)."""
        tracer = self.tracer

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def name_view(*args: Any, **kwargs: Any) -> Any:
                with inside():
                    result = original(*args, **kwargs)
                try:
                    name = args[1] if len(args) > 1 else kwargs.get("name")
                    if tracer.recording and isinstance(name, str):
                        tracer.recorder.named_view(name, args[0])
                except Exception as err:
                    tracer.warn(f"{method}: {type(err).__name__}: {err}")
                return result

            return name_view

        return make

    def _rdd(self) -> Callable[[Any], Any]:
        """`df.rdd` takes rows out of the DataFrame API: a DataFrame made from them again has no
        traced lineage, so a rebuild must know it happened."""
        tracer = self.tracer

        def make(original: Any) -> Any:
            def rdd(df: Any) -> Any:
                try:
                    if tracer.recording:
                        tracer.recorder.rdd_taken(df)
                except Exception as err:
                    tracer.warn(f"rdd: {type(err).__name__}: {err}")
                return original.__get__(df, type(df))

            return property(rdd, doc=getattr(original, "__doc__", None))

        return make

    def _writer(self, action: str) -> Callable[[Any], Any]:
        """`df.write` (and `writeStream`): the rows go to files or a table, which the notebook
        or anyone else may read: a look at every row, recorded when the writer is taken."""
        tracer = self.tracer

        def make(original: Any) -> Any:
            def writer(df: Any) -> Any:
                try:
                    caller = sys._getframe(1)
                    if tracer.should_record(caller):
                        tracer.record_inspection(action, df, caller)
                except Exception as err:
                    tracer.warn(f"{action}: {type(err).__name__}: {err}")
                return original.__get__(df, type(df))

            return property(writer, doc=getattr(original, "__doc__", None))

        return make

    def _inspection(self, action: str) -> Callable[[Any], Any]:
        tracer = self.tracer

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def look(*args: Any, **kwargs: Any) -> Any:
                caller = sys._getframe(1)
                if not tracer.should_record(caller):
                    return original(*args, **kwargs)
                try:
                    tracer.record_inspection(action, args[0], caller)
                except Exception as err:
                    tracer.warn(f"{action}: {type(err).__name__}: {err}")
                with inside():
                    result = original(*args, **kwargs)
                if action == "collect":
                    try:
                        tracer.recorder.collected(args[0], result)
                    except Exception as err:
                        tracer.warn(f"{action}: {type(err).__name__}: {err}")
                return result

            return look

        return make

    def _udf_pickled(self) -> Callable[[Any], Any]:
        """Spark pickles a UDF's function, with the globals it reads, once: when the UDF is
        first called. The constants are recorded at that moment, so they are the ones Spark runs."""
        tracer = self.tracer

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def create(udf_self: Any, func: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    if tracer.active:
                        tracer.udfs.pickled(udf_self, func)
                except Exception as err:
                    tracer.warn(f"udf constants: {type(err).__name__}: {err}")
                return original(udf_self, func, *args, **kwargs)

            return create

        return make

    def _udf_called(self) -> Callable[[Any], Any]:
        """Each call of a UDF gives a PythonUDF expression: tie it to the function called, since
        Spark's plans name it only by the function's name (udfs.py)."""
        return self._after_udf("udf call", lambda udf, result: self.tracer.udfs.called(udf, result))

    def _udf_defined(self) -> Callable[[Any], Any]:
        return self._after_udf("udf", lambda udf, result: self.tracer.udfs.defined(udf, udf.func))

    def _after_udf(self, label: str, note: Callable[[Any, Any], None]) -> Callable[[Any], Any]:
        """A wrapper of a UserDefinedFunction method that runs it, then `note(udf, result)`
        while tracing; a failure of the note is a warning, never the user's error."""
        tracer = self.tracer

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def run(udf_self: Any, *args: Any, **kwargs: Any) -> Any:
                result = original(udf_self, *args, **kwargs)
                try:
                    if tracer.active:
                        note(udf_self, result)
                except Exception as err:
                    tracer.warn(f"{label}: {type(err).__name__}: {err}")
                return result

            return run

        return make
