"""Python UDFs as Spark runs them: their source, the notebook constants they read, and the
collected tables they loop over.

A UDF's source is read when it is defined; the constants its function reads (globals and
closure variables) are recorded when Spark pickles the function, on its first call, since
those are the values Spark ships to the executors. A list returned by a traced `collect()`
that a UDF reads is a side input: the DataFrame it was collected from feeds the UDF's event.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import threading
import types
from typing import Any, Callable, Iterator

from magicpush_lab.capture.trace import Udf


def function_source(func: Callable[..., Any]) -> str | None:
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
    if len(lambdas) > 1:  # several on the line: the one whose body holds the code's positions
        lambdas = [n for n in lambdas if _holds_code(n, func.__code__, src)]
    if len(lambdas) == 1:
        return ast.get_source_segment(src, lambdas[0]) or src
    return src


def _holds_code(node: ast.Lambda, code: Any, src: str) -> bool:
    """Whether the compiled lambda `code` is this lambda of `src` (the text getsource gave, which
    starts at the code's first line): its instructions sit inside the lambda's body."""
    first = code.co_firstlineno
    body = node.body
    lines = src.splitlines(keepends=True)

    def offset(line: int, col: int) -> int:  # positions count UTF-8 bytes from the line's start
        return sum(len(x.encode()) for x in lines[:line - 1]) + col

    start, end = offset(body.lineno, body.col_offset), offset(body.end_lineno or body.lineno, body.end_col_offset or 0)
    found = False
    for line, _, col, _ in code.co_positions():
        if line is None or col is None or (line, col) == (first, 0):
            continue  # the code's own entry and exit, placed at the start of its first line
        at = offset(line - first + 1, col)
        if not start <= at <= end:
            return False
        found = True
    return found


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
    """The UDF's source preceded by what it reads from the notebook: `import` lines for the modules
    (and the classes and functions of modules) it names, `NAME = literal` lines for the constants,
    and the source of the notebook's functions it calls (their own such names first), so that the
    UDF's function is the last one of the text.

    >>> import math
    >>> LIMIT = 3
    >>> def scaled(v):
    ...     return math.floor(v) * LIMIT
    >>> print(with_captured_constants("def f(v):\\n    return scaled(v)", lambda v: scaled(v)))
    import math
    LIMIT = 3
    def scaled(v):
        return math.floor(v) * LIMIT
    def f(v):
        return scaled(v)
    """
    imports: dict[str, str] = {}
    constants: dict[str, Any] = {}
    helpers: list[str] = []
    _collect(func, imports, constants, helpers, {id(func)}, 0)
    lines = [imports[n] for n in sorted(imports)] + [f"{name} = {value!r}" for name, value in sorted(constants.items())]
    return "\n".join(lines + helpers + [source]) if lines or helpers else source


_MAX_HELPERS = 8
_MAX_HELPER_DEPTH = 3


def _collect(func: Any, imports: dict[str, str], constants: dict[str, Any], helpers: list[str],
             seen: set[int], depth: int) -> None:
    """What `func` reads: its modules, constants and helper functions (their sources, each once,
    in an order where a helper comes after the helpers it calls). A name two functions read with
    different values cannot be one line of the text: the helper that reads it is left out."""
    if getattr(func, "__code__", None) is None:
        return
    for name, value in _names_read(func):
        line = _import_line(name, value)
        if line is not None:
            if imports.setdefault(name, line) != line:
                continue
        elif _plain(value):
            if name in constants and constants[name] != value:
                continue
            constants[name] = value
        elif _small_frame(value) is not None:
            # a lookup table the function merges with: recorded as the frame it builds again
            imports.setdefault("pandas", "import pandas")
            constants[name] = _FrameText(_small_frame(value))  # type: ignore[arg-type]
        elif isinstance(value, types.FunctionType) and id(value) not in seen and depth < _MAX_HELPER_DEPTH \
                and len(helpers) < _MAX_HELPERS and value.__name__ == name:
            seen.add(id(value))
            source = function_source(value)
            if source is None:
                continue
            if value.__name__ == "<lambda>":
                source = f"{name} = {source.strip()}"
            _collect(value, imports, constants, helpers, seen, depth + 1)
            helpers.append(source.rstrip())


class _FrameText(str):
    """A recorded frame's code, written as it is (not as a string literal)."""

    def __repr__(self) -> str:
        return str(self)


_MAX_FRAME_CELLS = 256


def _small_frame(value: Any) -> str | None:
    """`pandas.DataFrame({...})` code building `value` again, for a small pandas frame of plain
    values with a default index; None for anything else."""
    cls = type(value)
    if cls.__name__ != "DataFrame" or not cls.__module__.startswith("pandas"):
        return None
    try:
        rows, cols = value.shape
        if rows * max(cols, 1) > _MAX_FRAME_CELLS or not all(isinstance(c, str) for c in value.columns) \
                or list(value.index) != list(range(rows)):
            return None
        columns = {}
        for c in value.columns:
            items = [None if isinstance(v, float) and v != v else (v.item() if hasattr(v, "item") else v)
                     for v in value[c].tolist()]
            if not all(_plain(v, 1) for v in items):
                return None
            columns[c] = items
    except Exception:  # noqa: BLE001 - an odd frame is simply not recorded
        return None
    return f"pandas.DataFrame({columns!r})"


def _import_line(name: str, value: Any) -> str | None:
    """`import m as name` for a module, `from m import x as name` for a class or function a
    module defines; None for anything else."""
    if isinstance(value, types.ModuleType):
        module = value.__name__
        return f"import {module}" if module == name else f"import {module} as {name}"
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not module or not qualname or "." in qualname or isinstance(value, types.FunctionType) and \
            module == "__main__":
        return None
    if not isinstance(value, (type, types.BuiltinFunctionType, types.FunctionType)):
        return None
    owner = sys.modules.get(module)
    if owner is None or getattr(owner, qualname, None) is not value:
        return None
    if isinstance(value, types.FunctionType) and not module.split(".")[0] in _LIBRARIES:
        return None  # the notebook's own functions are recorded by their source
    return f"from {module} import {qualname}" + (f" as {name}" if name != qualname else "")


# modules whose functions a UDF calls by name: known to the interpreter (math, re, datetime) or
# black boxes of it; a function of any other module is recorded by its source
_LIBRARIES = frozenset({"math", "re", "datetime", "decimal", "hashlib", "json", "string", "statistics",
                        "numpy", "pandas", "pyspark", "collections", "itertools", "functools", "operator"})


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


def _int_extension_dtype(session: Any = None) -> bool:
    """Whether `session` (the DataFrame's; the active session when its DataFrame is gone) gives
    pandas UDFs integer columns as nullable Int series. When it cannot be told, say yes: the
    engine then refuses to read such UDFs."""
    try:
        if session is None:
            from pyspark.sql import SparkSession

            session = SparkSession.getActiveSession()
        value = session.conf.get("spark.sql.execution.pythonUDF.pandas.preferIntExtensionDtype", "false")
        return str(value).lower() == "true"
    except Exception:
        return True


def _udf_kind(eval_type: Any) -> str:
    # PythonEvalType: 1xx row-at-a-time Python UDFs, 2xx pandas/arrow vectorized UDFs.
    return "pandas" if isinstance(eval_type, int) and 200 <= eval_type < 300 else "python"


class UdfCapture:
    """The UDFs defined and shipped while tracing, each call Spark's plans hold tied to its
    function, and the lists `collect()` returned.

    Spark's plans name a Python UDF by its function's name alone, so two functions of one name
    (every lambda is `<lambda>`; a function defined again differently keeps its name) look
    alike there. Each distinct function gets a name of its own for the trace, `name` for the
    first and `name#2`, `name#3`... for the others (see `defined`), and each call (a PythonUDF
    expression, identified by its result id) is tied to the function it was made from when the
    UDF is called (see `called`). A call of a shared name that cannot be tied (made outside
    tracing, or from SQL text) is a function of its own with no known source: it is never read
    as another function's body, nor equated with another call.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._udfs: dict[str, tuple[Any, str | None]] = {}  # trace name -> (UserDefinedFunction, source)
        # Spark's name -> [(source with its constants or None, trace name)]: the distinct functions seen
        self._functions: dict[str, list[tuple[str | None, str]]] = {}
        self._named: dict[int, tuple[Any, str]] = {}  # id(UserDefinedFunction) -> (it, its trace name)
        self._calls: dict[int, str] = {}  # result id of a PythonUDF expression -> the trace name of its function
        # id(UserDefinedFunction) -> (source with its captured constants, its side inputs), as
        # Spark pickled the function
        self._shipped: dict[int, tuple[str, tuple[tuple[str, int], ...]]] = {}
        # id(list) -> (list, event id): what collect() returned, so a UDF reading it can be tied to it
        self._collected: dict[int, tuple[Any, int]] = {}

    def defined(self, udf: Any, func: Any) -> str:
        """A UserDefinedFunction was made of `func`: keep its source, and give it its trace name:
        the name of an earlier function with the same source reading the same constants (the
        same function, say a cell run again), else a new one."""
        source = function_source(func)
        # the same text reading other constants (a closure, a global changed since) is another function
        try:
            meaning = with_captured_constants(source, func) if source is not None else None
        except Exception:  # noqa: BLE001 - the tracer never breaks the user's cell; unknown meaning
            meaning = None
        with self._lock:
            known = self._named.get(id(udf))
            if known is not None and known[0] is udf:
                return known[1]
            name = str(udf._name)
            seen = self._functions.setdefault(name, [])
            # a function whose meaning is unknown is only ever itself
            same = next((trace_name for m, trace_name in seen if meaning is not None and m == meaning), None)
            trace_name = same or (name if not seen else f"{name}#{len(seen) + 1}")
            if same is None:
                seen.append((meaning, trace_name))
            self._udfs[trace_name] = (udf, source)
            self._named[id(udf)] = (udf, trace_name)
            return trace_name

    def called(self, udf: Any, column: Any) -> None:
        """`udf` was called and gave `column`: tie the PythonUDF expression in it (by the result
        id Spark gave it, which its plans keep) to `udf`'s function. Classic sessions only:
        elsewhere the call stays untied."""
        jc = getattr(column, "_jc", None)
        if jc is None:
            return
        node = jc.node()  # Spark 4's Column holds a ColumnNode; a UDF's call wraps its expression
        if node.getClass().getSimpleName() != "ExpressionColumnNode":
            return
        expr = node.expression()
        if expr.getClass().getSimpleName() not in ("PythonUDF", "PythonUDAF"):
            return
        result_id = int(expr.resultId().id())
        with self._lock:
            known = self._named.get(id(udf))
            trace_name = known[1] if known is not None and known[0] is udf else self.defined(udf, udf.func)
            self._calls[result_id] = trace_name

    def pickled(self, udf: Any, func: Any) -> None:
        """Spark pickles `func` now: the constants it reads, and the collected lists among them,
        are the ones Spark runs."""
        known = self._named.get(id(udf))
        if known is None or known[0] is not udf:
            return
        _, source = self._udfs.get(known[1], (None, None))
        if source is not None:
            with self._lock:
                if id(udf) not in self._shipped:
                    self._shipped[id(udf)] = (with_captured_constants(source, func), self._side_inputs_of(func))

    def collected(self, rows: Any, event: int) -> None:
        """`rows` is what collect() returned for `event`'s DataFrame."""
        if isinstance(rows, list):
            with self._lock:
                self._collected[id(rows)] = (rows, event)

    def trace_name(self, record_id: int, record: dict[str, Any]) -> str:
        """The trace name of a PythonUDF expression record: its function's, when the call was
        tied; Spark's name, when only one function has it; else a name of its own (the
        record's id, which equal calls share)."""
        name = str(record["name"])
        result_id = (record.get("resultId") or {}).get("id") if isinstance(record.get("resultId"), dict) else None
        with self._lock:
            tied = self._calls.get(result_id) if result_id is not None else None
            if tied is not None:
                return tied
            if len(self._functions.get(name, ())) <= 1:
                return name
        return f"{name}#call{record_id}"

    def udfs_of(self, store: Any, plan: int, session: Any = None) -> tuple[Udf, ...]:
        """The Python UDFs plan `plan` of `store` calls, each with its trace name and the result
        ids of its calls there, as they were defined and shipped; `session` is the one the
        plan's DataFrame runs on."""
        found: dict[str, tuple[dict[str, Any], list[int]]] = {}
        for record_id, node in store.udf_calls(plan):
            trace_name = self.trace_name(record_id, node)
            result_id = (node.get("resultId") or {}).get("id") if isinstance(node.get("resultId"), dict) else None
            calls = found.setdefault(trace_name, (node, []))[1]
            if result_id is not None and trace_name != str(node["name"]):
                calls.append(int(result_id))
        out = []
        for trace_name, (node, calls) in found.items():
            udf, source = self._udfs.get(trace_name, (None, None))
            side_inputs: tuple[tuple[str, int], ...] = ()
            if udf is not None and source is not None:
                # the snapshot taken when Spark pickled the function (see pickled); a UDF
                # pickled before tracing started gets today's values
                if id(udf) not in self._shipped:
                    self.pickled(udf, udf.func)
                source, side_inputs = self._shipped.get(id(udf), (source, ()))
            return_type = "other"
            if udf is not None:
                try:
                    return_type = udf.returnType.simpleString()
                except Exception:
                    return_type = str(node.get("dataType", "other"))
            kind = _udf_kind(node.get("evalType"))
            out.append(Udf(name=trace_name, source=source, deterministic=bool(node.get("udfDeterministic", True)),
                           return_type=return_type, kind=kind,
                           int_extension_dtype=kind == "pandas" and _int_extension_dtype(session),
                           side_inputs=side_inputs, calls=tuple(sorted(set(calls)))))
        return tuple(out)

    def _side_inputs_of(self, func: Any) -> tuple[tuple[str, int], ...]:
        """The names the UDF's function reads (globals and closure variables) that hold a list
        returned by a traced collect(), with the event that was collected."""
        code = getattr(func, "__code__", None)
        if code is None:
            return ()
        found = []
        for name, value in _names_read(func):
            known = self._collected.get(id(value))
            if known is not None and known[0] is value:
                found.append((name, known[1]))
        return tuple(sorted(set(found)))


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
