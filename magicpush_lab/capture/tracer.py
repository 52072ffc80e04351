"""Record a notebook's PySpark dataflow by wrapping PySpark's classic API.

While a `Tracer` is installed, every DataFrame-producing call (read, filter,
withColumn, join...) appends an `Event` holding Spark's analyzed plan of the
result, and every action or look at a DataFrame (count, show, toPandas...)
appends an `Inspection`. Recording must never change what user code sees: any
failure inside the recording is swallowed and kept in `Tracer.warnings`.

Which methods are wrapped is data (`DATAFRAME_OPS`, `READER_OPS`, ...), so more
API can be covered by adding table entries.

>>> op_name("filter", (None, "v > 1"), {}), op_name("__getitem__", (None, ["a"]), {})
('filter', 'select')
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import json
import os
import sys
import sysconfig
import textwrap
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Sequence

from magicpush_lab.capture.plan_fields import analyzed_plan_json
from magicpush_lab.capture.trace import Cell, Event, Inspection, Site, Trace, Udf

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
# themselves, but remembered with their arguments so that the step can be re-run (rebuild.py).
GROUPING_METHODS = ("groupBy", "groupby", "cube", "rollup", "groupingSets")
GROUPED_GROUPING_METHODS = ("pivot", "cogroup")

# Actions and looks: recorded as inspections, never as pipeline steps.
# Those that hand rows to Python, where notebook code can make new DataFrames of them:
ROWS_OUT = frozenset({"collect", "toPandas", "take", "head", "first", "tail", "toLocalIterator", "toArrow"})
INSPECTIONS = ("count", "show", "collect", "toPandas", "take", "head", "first", "printSchema", "describe",
               "summary", "tail", "toLocalIterator", "isEmpty", "foreach", "foreachPartition", "toArrow",
               "explain")


def op_name(method: str, args: tuple, kwargs: dict, table: Mapping[str, Any] | None = None) -> str | None:
    """The op a call of `method` records, or None if it records none."""
    spec = (DATAFRAME_OPS if table is None else table).get(method)
    if spec is None or isinstance(spec, str):
        return spec
    return spec(args, kwargs)


_local = threading.local()


def _depth() -> int:
    return getattr(_local, "depth", 0)


@contextmanager
def _inside() -> Iterator[None]:
    _local.depth = _depth() + 1
    try:
        yield
    finally:
        _local.depth -= 1


@functools.lru_cache(maxsize=None)
def _library_roots() -> tuple[str, ...]:
    import IPython
    import py4j
    import pyspark

    import magicpush_lab

    roots = {os.path.dirname(m.__file__ or "") for m in (IPython, py4j, pyspark, magicpush_lab)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            roots.add(sysconfig.get_paths()[key])
        except KeyError:
            pass
    try:
        import ipykernel

        roots.add(os.path.dirname(ipykernel.__file__))
    except ImportError:
        pass
    return tuple(sorted(r + os.sep for r in roots if r))


@functools.lru_cache(maxsize=4096)
def is_library_file(filename: str) -> bool:
    """True for code that is not the user's: PySpark, IPython, this package, the standard library.

    >>> is_library_file(json.__file__), is_library_file("<frozen runpy>"), is_library_file("/tmp/ipykernel_1/2.py")
    (True, True, False)
    """
    if filename.startswith("<frozen ") or filename.startswith("<__array_function__"):
        return True
    return os.path.abspath(filename).startswith(_library_roots())


def cell_shifts(raw: str, transformed: str) -> tuple[int, int]:
    """(lines, columns) to add to positions in IPython's transformed cell to get positions in the raw cell.

    IPython drops leading blank lines and a common leading indent before compiling.

    >>> cell_shifts("\\n\\n  x = 1\\n  y = 2\\n", "x = 1\\ny = 2\\n")
    (2, 2)
    """
    def blank_lead(lines: list[str]) -> int:
        return next((i for i, line in enumerate(lines) if line.strip()), len(lines))

    r, t = raw.splitlines(), transformed.splitlines()
    rb, tb = blank_lead(r), blank_lead(t)
    lines = max(rb - tb, 0)
    cols = 0
    if rb < len(r) and tb < len(t):
        cols = max((len(r[rb]) - len(r[rb].lstrip())) - (len(t[tb]) - len(t[tb].lstrip())), 0)
    return lines, cols


@dataclass
class _CellCode:
    execution_count: int
    line_shift: int
    col_shift: int
    code: str  # the source IPython compiled (positions in frames refer to it)
    _ends: dict[tuple[int, int], list[ast.expr]] | None = None

    def calls_ending_at(self, end: tuple[int, int]) -> list[ast.expr]:
        """Call and subscript nodes of the compiled code, by end position (parsed on first use)."""
        if self._ends is None:
            self._ends = {}
            try:
                tree = ast.parse(self.code)
            except SyntaxError:
                tree = None
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, (ast.Call, ast.Subscript)):
                    self._ends.setdefault((node.end_lineno, node.end_col_offset), []).append(node)  # type: ignore[arg-type]
        return self._ends.get(end, [])


def call_span(cell: _CellCode, pos: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The whole call expression for an instruction's positions (lineno, end_lineno, col, end_col).

    Python 3.11 starts the position of a method call that continues a multi-line
    chain at the method's name; the expression a site means starts at the chain's head.
    """
    lineno, end_lineno, col, end_col = pos
    best = None
    for node in cell.calls_ending_at((end_lineno, end_col)):
        start = (node.lineno, node.col_offset)
        if start == (lineno, col):
            return pos
        if start <= (lineno, col) and (best is None or start > (best.lineno, best.col_offset)):
            best = node
    if best is None:
        return pos
    return best.lineno, end_lineno, best.col_offset, end_col


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


def _function_source(func: Callable[..., Any]) -> str | None:
    """The dedented source of a UDF's function; for a lambda, just the lambda expression."""
    try:
        src = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return None
    if getattr(func, "__name__", "") != "<lambda>":
        return src
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return src.strip()
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    if len(lambdas) == 1:
        return ast.get_source_segment(src, lambdas[0]) or src
    return src


_MAX_CAPTURED_ITEMS = 256


def captured_constants(func: Callable[..., Any]) -> dict[str, Any]:
    """The plain constants a function reads from its globals or closure: numbers, strings,
    None, and small lists, tuples, sets and dicts of those. Modules, functions and anything
    else are left out (the UDF then reads an unknown name, which the analysis refuses).

    >>> RATE = 3
    >>> captured_constants(lambda v: v * RATE)
    {'RATE': 3}
    """
    if getattr(func, "__code__", None) is None:
        return {}
    return {name: value for name, value in _names_read(func) if _plain(value)}


def with_captured_constants(source: str, func: Callable[..., Any]) -> str:
    """The UDF's source preceded by `NAME = literal` lines for the constants it reads."""
    lines = [f"{name} = {value!r}" for name, value in sorted(captured_constants(func).items())]
    return "\n".join(lines + [source]) if lines else source



def _plain(value: Any, depth: int = 0) -> bool:
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    if depth == 0 and isinstance(value, (list, tuple, set, frozenset)):
        return len(value) <= _MAX_CAPTURED_ITEMS and all(_plain(v, 1) for v in value)
    if depth == 0 and isinstance(value, dict):
        return len(value) <= _MAX_CAPTURED_ITEMS and all(_plain(k, 1) and _plain(v, 1) for k, v in value.items())
    return False


def python_udfs_in_plan(plan_json: str) -> list[dict[str, Any]]:
    """The PythonUDF expression nodes of a plan's JSON, in order, without duplicates by name.

    >>> python_udfs_in_plan('[{"class": "x.Project", "projectList": [[{"class": "a.PythonUDF", "name": "f"}]]}]')
    [{'class': 'a.PythonUDF', 'name': 'f'}]
    """
    if "PythonUDF" not in plan_json:
        return []
    found: dict[str, dict[str, Any]] = {}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if str(node.get("class", "")).endswith(".PythonUDF") and "name" in node:
                found.setdefault(str(node["name"]), node)
            for v in node.values():
                visit(v)
        elif isinstance(node, list):
            for v in node:
                visit(v)

    visit(json.loads(plan_json))
    return list(found.values())


def _int_extension_dtype() -> bool:
    """Whether the active session gives pandas UDFs integer columns as nullable Int series.
    When it cannot be told, say yes: the engine then refuses to read such UDFs."""
    try:
        from pyspark.sql import SparkSession

        session = SparkSession.getActiveSession()
        value = session.conf.get("spark.sql.execution.pythonUDF.pandas.preferIntExtensionDtype", "false")
        return str(value).lower() == "true"
    except Exception:
        return True


def _udf_kind(eval_type: Any) -> str:
    # PythonEvalType: 1xx row-at-a-time Python UDFs, 2xx pandas/arrow vectorized UDFs.
    return "pandas" if isinstance(eval_type, int) and 200 <= eval_type < 300 else "python"


class Call(NamedTuple):
    """A traced call as it was made: enough to make it again on other inputs.

    receiver: "dataframe", "grouped", "cogrouped" or "source" (as in `_make_step`);
    args[0] is the object the method was called on, the rest are the live arguments
    (references: the Columns, DataFrames and Python values the notebook passed).
    """

    receiver: str
    method: str
    args: tuple
    kwargs: dict


_ACTIVE: "Tracer | None" = None
_INSTALL_LOCK = threading.Lock()


class Tracer:
    """Wraps the PySpark API while installed and accumulates a `Trace`."""

    def __init__(self) -> None:
        self.cells: list[Cell] = []
        self.events: list[Event] = []
        self.inspections: list[Inspection] = []
        self.variables: dict[str, int] = {}
        self.warnings: list[str] = []
        self._code_names: dict[str, _CellCode] = {}
        self._frames: dict[int, tuple[Any, int]] = {}  # id(df) -> (df, event id); the df ref keeps ids unique
        self._udfs: dict[str, tuple[Any, str | None]] = {}  # UDF name -> (UserDefinedFunction, source)
        self._shipped: dict[int, str] = {}  # id(UserDefinedFunction) -> source with its captured constants
        # id(list) -> (list, event id): what collect() returned, so a UDF reading it can be tied to it
        self._collected: dict[int, tuple[Any, int]] = {}
        self._calls: dict[int, Call] = {}  # event id -> the call that produced it
        # id(GroupedData or cogrouped ops) -> (that object, the call that made it)
        self._groupings: dict[int, tuple[Any, Call]] = {}
        # (event, action, events recorded by then) for each time rows of a DataFrame went to
        # Python (collect, toPandas, .rdd...): what a rebuild cannot follow (rebuild.py)
        self._rows_out: list[tuple[int, str, int]] = []
        self._patches: list[tuple[type, str, bool, Any]] = []
        self._lock = threading.RLock()
        self._suspended = 0

    # -- installation -------------------------------------------------------
    @property
    def installed(self) -> bool:
        return bool(self._patches)

    def install(self) -> None:
        """Wrap the PySpark API; idempotent. Only one tracer can be installed at a time."""
        global _ACTIVE
        with _INSTALL_LOCK:
            if _ACTIVE is self:
                return
            if _ACTIVE is not None:
                raise RuntimeError("another Tracer is installed; uninstall it first")
            from pyspark.sql.classic.dataframe import DataFrame
            from pyspark.sql.group import GroupedData
            from pyspark.sql.readwriter import DataFrameReader
            from pyspark.sql.session import SparkSession
            from pyspark.sql.udf import UserDefinedFunction

            for name, spec in DATAFRAME_OPS.items():
                self._patch(DataFrame, name, self._make_step(name, spec, "dataframe"))
            for name in INSPECTIONS:
                self._patch(DataFrame, name, self._make_inspection(name))
            for name, spec in GROUPED_OPS.items():
                self._patch(GroupedData, name, self._make_step(name, spec, "grouped"))
            for name in GROUPING_METHODS:
                self._patch(DataFrame, name, self._make_grouping(name, "dataframe"))
            for name in GROUPED_GROUPING_METHODS:
                self._patch(GroupedData, name, self._make_grouping(name, "grouped"))
            self._patch(DataFrame, "rdd", self._make_rdd_hook())
            try:
                from pyspark.sql.pandas.group_ops import PandasCogroupedOps
            except ImportError:  # no pandas support in this PySpark: nothing to wrap
                PandasCogroupedOps = None
            for name, spec in COGROUPED_OPS.items():
                if PandasCogroupedOps is not None:
                    self._patch(PandasCogroupedOps, name, self._make_step(name, spec, "cogrouped"))
            for name, spec in READER_OPS.items():
                self._patch(DataFrameReader, name, self._make_step(name, spec, "source"))
            for name, spec in SESSION_OPS.items():
                self._patch(SparkSession, name, self._make_step(name, spec, "source"))
            self._patch(UserDefinedFunction, "__init__", self._make_udf_hook())
            self._patch(UserDefinedFunction, "_create_judf", self._make_pickle_hook())
            _ACTIVE = self

    def uninstall(self) -> None:
        """Put every original method back."""
        global _ACTIVE
        with _INSTALL_LOCK:
            for owner, name, had_own, original in reversed(self._patches):
                if had_own:
                    setattr(owner, name, original)
                else:
                    try:
                        delattr(owner, name)
                    except AttributeError:
                        pass
            self._patches.clear()
            if _ACTIVE is self:
                _ACTIVE = None

    def _patch(self, owner: type, name: str, make: Callable[[Any], Any]) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return
        had_own = name in owner.__dict__
        raw = owner.__dict__[name] if had_own else original
        wrapper = make(original)
        setattr(owner, name, wrapper)
        self._patches.append((owner, name, had_own, raw))

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

    def _should_record(self, caller: Any) -> bool:
        if _ACTIVE is not self or self._suspended:
            return False
        # A wrapped method calling another wrapped method is PySpark's inner
        # working: record the outermost call only, unless the inner call comes
        # straight from notebook code (a callback such as df.transform(f)).
        return _depth() == 0 or caller.f_code.co_filename in self._code_names

    # -- wrappers -----------------------------------------------------------
    def _make_step(self, method: str, spec: Any, receiver: str) -> Callable[[Any], Any]:
        tracer = self

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def step(*args: Any, **kwargs: Any) -> Any:
                caller = sys._getframe(1)
                if not tracer._should_record(caller):
                    return original(*args, **kwargs)
                with _inside():
                    result = original(*args, **kwargs)
                try:
                    op = spec if isinstance(spec, str) else spec(args, kwargs)
                    if op is not None:
                        tracer._record_step(op, receiver, args, kwargs, result, caller, method)
                except Exception as err:  # recording must never break the user's call
                    tracer._warn(f"{method}: {type(err).__name__}: {err}")
                return result

            return step

        return make

    def _make_grouping(self, method: str, receiver: str) -> Callable[[Any], Any]:
        """Remember how a GroupedData was made; it is not a DataFrame, so no event."""
        tracer = self

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def group(*args: Any, **kwargs: Any) -> Any:
                result = original(*args, **kwargs)
                try:
                    if tracer._should_record(sys._getframe(1)):
                        with tracer._lock:
                            tracer._groupings[id(result)] = (result, Call(receiver, method, args, kwargs))
                except Exception as err:
                    tracer._warn(f"{method}: {type(err).__name__}: {err}")
                return result

            return group

        return make

    def _make_rdd_hook(self) -> Callable[[Any], Any]:
        """`df.rdd` takes rows out of the DataFrame API: a DataFrame made from them again has no
        traced lineage, so a rebuild must know it happened."""
        tracer = self

        def make(original: Any) -> Any:
            def rdd(df: Any) -> Any:
                try:
                    if _ACTIVE is tracer and not tracer._suspended:
                        known = tracer._frames.get(id(df))
                        if known is not None and known[0] is df:
                            tracer._note_rows_out(known[1], "rdd")
                except Exception as err:
                    tracer._warn(f"rdd: {type(err).__name__}: {err}")
                return original.__get__(df, type(df))

            return property(rdd, doc=getattr(original, "__doc__", None))

        return make

    def _make_inspection(self, action: str) -> Callable[[Any], Any]:
        tracer = self

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def look(*args: Any, **kwargs: Any) -> Any:
                caller = sys._getframe(1)
                if not tracer._should_record(caller):
                    return original(*args, **kwargs)
                try:
                    tracer._record_inspection(action, args[0], caller)
                except Exception as err:
                    tracer._warn(f"{action}: {type(err).__name__}: {err}")
                with _inside():
                    result = original(*args, **kwargs)
                if action == "collect":
                    try:
                        tracer._remember_collected(args[0], result)
                    except Exception as err:
                        tracer._warn(f"{action}: {type(err).__name__}: {err}")
                return result

            return look

        return make

    def _make_pickle_hook(self) -> Callable[[Any], Any]:
        """Spark pickles a UDF's function, with the globals it reads, once: when the UDF is
        first called. The constants are recorded at that moment, so they are the ones Spark runs."""
        tracer = self

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def create(udf_self: Any, func: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    if _ACTIVE is tracer:
                        _, source = tracer._udfs.get(str(udf_self._name), (None, None))
                        if source is not None:
                            tracer._shipped.setdefault(id(udf_self), with_captured_constants(source, func))
                except Exception as err:
                    tracer._warn(f"udf constants: {type(err).__name__}: {err}")
                return original(udf_self, func, *args, **kwargs)

            return create

        return make

    def _make_udf_hook(self) -> Callable[[Any], Any]:
        tracer = self

        def make(original: Any) -> Any:
            @functools.wraps(original)
            def init(udf_self: Any, func: Any, *args: Any, **kwargs: Any) -> None:
                original(udf_self, func, *args, **kwargs)
                try:
                    if _ACTIVE is tracer:
                        tracer._udfs[str(udf_self._name)] = (udf_self, _function_source(func))
                except Exception as err:
                    tracer._warn(f"udf: {type(err).__name__}: {err}")

            return init

        return make

    # -- recording ----------------------------------------------------------
    def _warn(self, message: str) -> None:
        with self._lock:
            if len(self.warnings) < 1000:
                self.warnings.append(message)

    def _record_step(self, op: str, receiver: str, args: tuple, kwargs: dict, result: Any, caller: Any,
                     method: str | None = None) -> None:
        from pyspark.sql.classic.dataframe import DataFrame

        if isinstance(result, list) and result and all(isinstance(r, DataFrame) for r in result):
            for part in result:  # randomSplit: one event per returned DataFrame
                self._record_step(op, receiver, args, kwargs, part, caller, method)
            return
        if not isinstance(result, DataFrame):
            return
        inputs: list[int] = []
        rest = args
        if receiver == "dataframe":
            inputs.append(self.event_of(args[0]))
            rest = args[1:]
        elif receiver == "grouped":
            inputs.append(self.event_of(args[0]._df))
            rest = args[1:]
        elif receiver == "cogrouped":
            inputs.extend((self.event_of(args[0]._gd1._df), self.event_of(args[0]._gd2._df)))
            rest = args[1:]
        else:
            rest = args[1:]  # the reader or the session
        for df in _dataframes_in(rest, kwargs):
            inputs.append(self.event_of(df))
        call = Call(receiver, method or op, tuple(args), dict(kwargs))
        self._add_event(op, tuple(inputs), result, self.site_of(caller), short_args(rest, kwargs), call)

    def _record_inspection(self, action: str, df: Any, caller: Any) -> None:
        site = self.site_of(caller)
        event = self.event_of(df)
        with self._lock:
            self.inspections.append(Inspection(event, action, site))
        if action in ROWS_OUT:
            self._note_rows_out(event, action)

    def _note_rows_out(self, event: int, action: str) -> None:
        with self._lock:  # never capped: a rebuild relies on every one being here
            self._rows_out.append((event, action, len(self.events)))

    def _add_event(self, op: str, inputs: tuple[int, ...], df: Any, site: Site | None,
                   args: tuple[str, ...], call: Call | None = None) -> int:
        plan = analyzed_plan_json(df._jdf)
        columns = tuple((f.name, f.dataType.simpleString()) for f in df.schema.fields)
        udfs = self._udfs_of(plan)
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
        return self._add_event("unknown", (), df, None, ())

    def _udfs_of(self, plan: str) -> tuple[Udf, ...]:
        out = []
        for node in python_udfs_in_plan(plan):
            name = str(node["name"])
            udf, source = self._udfs.get(name, (None, None))
            if udf is not None and source is not None:
                # the snapshot taken when Spark pickled the function (see _make_pickle_hook);
                # a UDF pickled before tracing started gets today's values
                source = self._shipped.setdefault(id(udf), with_captured_constants(source, udf.func))
            return_type = "other"
            if udf is not None:
                try:
                    return_type = udf.returnType.simpleString()
                except Exception:
                    return_type = str(node.get("dataType", "other"))
            kind = _udf_kind(node.get("evalType"))
            out.append(Udf(name=name, source=source, deterministic=bool(node.get("udfDeterministic", True)),
                           return_type=return_type, kind=kind,
                           int_extension_dtype=kind == "pandas" and _int_extension_dtype(),
                           side_inputs=self._side_inputs_of(udf)))
        return tuple(out)

    # -- collected tables a UDF reads (RowIterPipeline) ------------------------
    def _remember_collected(self, df: Any, rows: Any) -> None:
        """Note that `rows` is the collect() of `df`'s event (recorded just before the call)."""
        known = self._frames.get(id(df))
        if isinstance(rows, list) and known is not None and known[0] is df:
            with self._lock:
                self._collected[id(rows)] = (rows, known[1])

    def _side_inputs_of(self, udf: Any) -> tuple[tuple[str, int], ...]:
        """The names the UDF's function reads (globals and closure variables) that hold a list
        returned by a traced collect(), with the event that was collected."""
        func = getattr(udf, "func", None)
        code = getattr(func, "__code__", None)
        if code is None:
            return ()
        found = []
        for name, value in _names_read(func):
            known = self._collected.get(id(value))
            if known is not None and known[0] is value:
                found.append((name, known[1]))
        return tuple(sorted(set(found)))

    # -- cells and sites ----------------------------------------------------
    def begin_cell(self, execution_count: int, raw: str, code_name: str, transformed: str | None = None,
                   cell_id: str | None = None) -> None:
        """Register a cell execution whose code will run from file name `code_name`."""
        lines, cols = cell_shifts(raw, transformed if transformed is not None else raw)
        with self._lock:
            self.cells.append(Cell(execution_count, raw, cell_id))
            self._code_names[code_name] = _CellCode(execution_count, lines, cols,
                                                    transformed if transformed is not None else raw)

    def end_cell(self, user_ns: Mapping[str, Any]) -> None:
        """Note which variables hold traced DataFrames now."""
        from pyspark.sql.classic.dataframe import DataFrame

        found: dict[str, int] = {}
        for name, value in list(user_ns.items()):
            if name.startswith("_") or not isinstance(value, DataFrame):
                continue
            known = self._frames.get(id(value))
            if known is not None and known[0] is value:
                found[name] = known[1]
        with self._lock:
            self.variables = found

    def site_of(self, frame: Any) -> Site | None:
        """Site of the call being made in the innermost notebook frame at or above `frame`."""
        f = frame
        while f is not None:
            filename = f.f_code.co_filename
            cell = self._code_names.get(filename)
            if cell is not None:
                return _site_in(f, cell)
            if not is_library_file(filename):
                return None  # user code that is not a notebook cell (a module, %time...)
            f = f.f_back
        return None

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


def _site_in(frame: Any, cell: _CellCode) -> Site | None:
    lasti = frame.f_lasti
    if lasti < 0:
        return None
    pos = next(itertools.islice(frame.f_code.co_positions(), lasti // 2, None), None)
    if pos is None or any(p is None for p in pos):
        return None
    lineno, end_lineno, col, end_col = call_span(cell, pos)
    return Site(cell.execution_count, lineno + cell.line_shift, col + cell.col_shift,
                end_lineno + cell.line_shift, end_col + cell.col_shift)


def _dataframes_in(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Iterator[Any]:
    from pyspark.sql.classic.dataframe import DataFrame

    for value in itertools.chain(args, kwargs.values()):
        if isinstance(value, DataFrame):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, DataFrame))


def _names_read(func: Any) -> Iterator[tuple[str, Any]]:
    """(name, value) for the globals and closure variables a function's code can read."""
    import dis

    def names(code: Any) -> set[str]:
        # the names loaded as globals (co_names also holds attribute names: `r.year` is not `year`)
        found = {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
        for const in code.co_consts:  # nested code: comprehensions, inner functions
            if hasattr(const, "co_names"):
                found |= names(const)
        return found

    code = func.__code__
    glob = getattr(func, "__globals__", {})
    for name in sorted(names(code)):
        if name in glob:
            yield name, glob[name]
    for name, cell in zip(code.co_freevars, getattr(func, "__closure__", None) or ()):
        try:
            yield name, cell.cell_contents
        except ValueError:  # an empty cell: the variable is not bound yet
            continue


def active_tracer() -> Tracer | None:
    """The installed tracer, if any."""
    return _ACTIVE
