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
import textwrap
import threading
from typing import Any, Callable, Iterator

from magicpush_lab.capture.trace import Udf


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


class UdfCapture:
    """The UDFs defined and shipped while tracing, and the lists `collect()` returned."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._udfs: dict[str, tuple[Any, str | None]] = {}  # UDF name -> (UserDefinedFunction, source)
        # id(UserDefinedFunction) -> (source with its captured constants, its side inputs), as
        # Spark pickled the function
        self._shipped: dict[int, tuple[str, tuple[tuple[str, int], ...]]] = {}
        # id(list) -> (list, event id): what collect() returned, so a UDF reading it can be tied to it
        self._collected: dict[int, tuple[Any, int]] = {}

    def defined(self, udf: Any, func: Any) -> None:
        """A UserDefinedFunction was made of `func`: keep its source."""
        with self._lock:
            self._udfs[str(udf._name)] = (udf, _function_source(func))

    def pickled(self, udf: Any, func: Any) -> None:
        """Spark pickles `func` now: the constants it reads, and the collected lists among them,
        are the ones Spark runs."""
        _, source = self._udfs.get(str(udf._name), (None, None))
        if source is not None:
            with self._lock:
                if id(udf) not in self._shipped:
                    self._shipped[id(udf)] = (with_captured_constants(source, func), self._side_inputs_of(func))

    def collected(self, rows: Any, event: int) -> None:
        """`rows` is what collect() returned for `event`'s DataFrame."""
        if isinstance(rows, list):
            with self._lock:
                self._collected[id(rows)] = (rows, event)

    def udfs_of(self, store: Any, plan: int) -> tuple[Udf, ...]:
        """The Python UDFs plan `plan` of `store` calls, as they were defined and shipped."""
        out = []
        for node in store.udfs(plan):
            name = str(node["name"])
            udf, source = self._udfs.get(name, (None, None))
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
            out.append(Udf(name=name, source=source, deterministic=bool(node.get("udfDeterministic", True)),
                           return_type=return_type, kind=kind,
                           int_extension_dtype=kind == "pandas" and _int_extension_dtype(),
                           side_inputs=side_inputs))
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
