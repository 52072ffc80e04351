"""`%load_ext magicpush_lab`: trace the notebook's PySpark calls and offer `%magicpush`.

Loading is idempotent; unloading removes the hooks and restores PySpark.
"""

from __future__ import annotations

import functools
import re
import types
from typing import Any

from magicpush_lab.capture.tracer import Tracer

_loaded: dict[int, "_Hooks"] = {}


@functools.lru_cache(maxsize=None)
def _counted_before_pre_run_cell() -> bool:
    """IPython 9.8 and later count a cell's execution before `pre_run_cell` (ipython/ipython#15088):
    there `execution_count` is already the next cell's number."""
    import IPython

    match = re.match(r"(\d+)\.(\d+)", IPython.__version__)
    return match is not None and (int(match.group(1)), int(match.group(2))) >= (9, 8)


class _Hooks:
    def __init__(self, ip: Any, tracer: Tracer) -> None:
        self.ip = ip
        self.tracer = tracer
        # the last %magicpush result, the notebook cell id behind each of its cell indices and
        # the text in front of traced code in its notebook cell: what `apply N` refers to
        self.last: tuple[Any, dict[int, str | None], dict[int, tuple[str, str]]] | None = None

    def pre_run_cell(self, info: Any) -> None:
        try:
            raw = info.raw_cell
            try:
                transformed = self.ip.transform_cell(raw)
            except Exception:
                transformed = raw
            number = self.ip.execution_count
            if getattr(info, "store_history", False) and _counted_before_pre_run_cell():
                number -= 1
            name = self.ip.compile.get_code_name(raw, transformed, number)
            self.tracer.begin_cell(number, raw, name, transformed, getattr(info, "cell_id", None))
        except Exception as err:  # never get in the way of running the cell
            self.tracer.warn(f"pre_run_cell: {type(err).__name__}: {err}")

    def post_run_cell(self, result: Any) -> None:
        try:
            self.tracer.end_cell(self.ip.user_ns, _error_of(result))
        except Exception as err:
            self.tracer.warn(f"post_run_cell: {type(err).__name__}: {err}")


def _error_of(result: Any) -> str | None:
    """The one line of a cell's error (its root cause, errortext.error_line), None if it ran."""
    from magicpush_lab.errortext import error_line

    err = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
    if err is None:
        return None
    return f"{type(err).__name__}: {error_line(type(err).__name__, str(err))}"


#: set by `magicpush optimize --remote URL` for its replay kernels: every session the notebook's
#: builder makes is a Spark Connect session on URL, whatever master the builder names
REMOTE_VARIABLE = "MAGICPUSH_REMOTE"
_builder_original: Any = None


def redirect_builder(url: str) -> None:
    """Make `SparkSession.builder...getOrCreate()` connect to the Connect server `url`: a master
    the notebook set is dropped (Spark refuses both at once). Idempotent; `restore_builder` undoes it."""
    global _builder_original
    from pyspark.sql.session import SparkSession

    builder = SparkSession.Builder
    if _builder_original is not None:
        return
    original = builder.getOrCreate

    def getOrCreate(self: Any) -> Any:
        with self._lock:
            self._options.pop("spark.master", None)
            self._options["spark.remote"] = url
        return original(self)

    _builder_original = original
    builder.getOrCreate = getOrCreate


def restore_builder() -> None:
    global _builder_original
    if _builder_original is None:
        return
    from pyspark.sql.session import SparkSession

    SparkSession.Builder.getOrCreate = _builder_original
    _builder_original = None


def load(ip: Any) -> Tracer:
    """Install tracing and the `%magicpush` magic in `ip`; loading twice changes nothing."""
    hooks = _loaded.get(id(ip))
    if hooks is not None:
        return hooks.tracer
    import os

    if os.environ.get(REMOTE_VARIABLE):
        redirect_builder(os.environ[REMOTE_VARIABLE])
    tracer = Tracer()
    tracer.install()
    hooks = _Hooks(ip, tracer)
    ip.events.register("pre_run_cell", hooks.pre_run_cell)
    ip.events.register("post_run_cell", hooks.post_run_cell)
    ip.register_magic_function(lambda line: magicpush(ip, line), "line", "magicpush")
    ip.register_magic_function(lambda line, cell: magicpush_cell(ip, line, cell), "cell", "magicpush")
    _loaded[id(ip)] = hooks
    return tracer


def unload(ip: Any) -> None:
    """Undo `load`: hooks, magic and the PySpark wrappers."""
    hooks = _loaded.pop(id(ip), None)
    if hooks is None:
        return
    for event, fn in (("pre_run_cell", hooks.pre_run_cell), ("post_run_cell", hooks.post_run_cell)):
        try:
            ip.events.unregister(event, fn)
        except ValueError:
            pass
    ip.magics_manager.magics["line"].pop("magicpush", None)
    ip.magics_manager.magics["cell"].pop("magicpush", None)
    hooks.tracer.uninstall()
    restore_builder()


def tracer_of(ip: Any) -> Tracer | None:
    hooks = _loaded.get(id(ip))
    return hooks.tracer if hooks is not None else None


# a module the rewrite may import, and its import as the rewrite reads it
_MODULES = {"pyspark.sql.functions": "pyspark.sql.functions", "pyspark.sql.connect.functions": "pyspark.sql.functions",
            "datetime": "datetime"}


def imports_before_tracing(namespace: dict[str, Any], cells: list[str]) -> list[str]:
    """Imports the namespace holds but the traced cells do not show (run before `%load_ext
    magicpush_lab`), one line each: read by the rewrite for the names the notebook has, so it
    adds no second import of a module already imported; never rewritten (no call ran there).

    >>> import datetime, pyspark.sql.functions as F
    >>> imports_before_tracing({"F": F, "dt": datetime, "x": 1}, ["import datetime"])
    ['import pyspark.sql.functions as F']
    >>> imports_before_tracing({"F": F}, ["from pyspark.sql import functions as F"])
    []
    """
    from magicpush_lab.rewrite.pyspark_code import datetime_alias, functions_alias

    lines: list[str] = []
    for name, value in namespace.items():
        module = value.__name__ if isinstance(value, types.ModuleType) else ""
        if module not in _MODULES or name.startswith("_"):
            continue
        written = _MODULES[module]
        alias_in = datetime_alias if written == "datetime" else functions_alias
        if alias_in(cells + lines)[1] is not None:
            lines.append(f"import {written} as {name}")
    return lines


def magicpush_result(ip: Any, line: str = "", body: str | None = None) -> dict[str, Any]:
    """The display data of `%magicpush line` (or of `%%magicpush line` over `body`): see
    magicpush_lab.kernel.magic for the options."""
    from magicpush_lab.assist import optimize_and_measure
    from magicpush_lab.budget import Budget
    from magicpush_lab.kernel.bundles import kernel_cells, measure_in_kernel
    from magicpush_lab.kernel.magic import apply_bundle, help_bundle, parse, render_error, show

    command = parse(line)
    if command.error is not None:
        return render_error(command.error)
    if command.help:
        return help_bundle()
    hooks = _loaded.get(id(ip))
    if hooks is None:
        return render_error("tracing is off; run %load_ext magicpush_lab first")
    if command.apply is not None:
        if hooks.last is None:
            return render_error("there is nothing to apply yet: run %magicpush first")
        result, ids, prefixes = hooks.last
        return apply_bundle(result, command.apply, command.together, ids, prefixes)
    sinks, prefixes = None, {}  # prefixes: index -> (text before the traced code, whole cell)
    if body is not None:
        before = {e.id for e in hooks.tracer.trace().events}
        ran = ip.run_cell(body, store_history=False)
        if not ran.success:
            return render_error("the cell raised an error; nothing was optimized")
        sinks = frozenset(e.id for e in hooks.tracer.trace().events if e.id not in before)
        if not sinks:
            return render_error("the cell made no PySpark DataFrame to optimize")
    trace = hooks.tracer.trace()
    if not trace.events:
        from magicpush_lab.capture.backends import untraced_kinds

        kinds = untraced_kinds(hooks.tracer.backend, list(ip.user_ns.values()))
        if kinds:
            return render_error("no PySpark DataFrame was traced: " + "; ".join(kinds))
        return render_error("no PySpark DataFrame calls were traced yet; run the pipeline's cells first")
    cells, ids = kernel_cells(trace)
    if body is not None and body in cells:
        # the %%magicpush cell itself: its notebook cell holds the magic line in front of the
        # code (which IPython hands over with a newline the notebook cell may not have)
        code = body.rstrip("\n")
        outer = next((c for c in reversed(trace.cells) if c.source.endswith(code) and c.source != body), None)
        if outer is not None:
            k = cells.index(body)
            ids[k] = outer.cell_id
            prefixes[k] = (outer.source[: len(outer.source) - len(code)], outer.source)
    # in front, as they ran: the rewrite looks for an import in the cells up to the one it changes
    seen = imports_before_tracing(ip.user_ns, cells)
    cells, ids = seen + cells, [None] * len(seen) + ids
    prefixes = {k + len(seen): v for k, v in prefixes.items()}
    tracer = hooks.tracer
    measurer = (lambda requests: measure_in_kernel(tracer, requests)) if command.measure else None
    try:
        result = optimize_and_measure(trace, cells, Budget(command.budget), measurer, cell_ids=ids,
                                      all_pipelines=command.every, only_sinks=sinks)
    except NotImplementedError as err:
        return render_error(f"the optimizer is not available: {err}")
    except Exception as err:
        return render_error(f"the optimizer failed: {type(err).__name__}: {err}")
    hooks.last = (result, dict(enumerate(ids)), prefixes)
    return show(result)


def magicpush(ip: Any, line: str = "") -> None:
    """%magicpush: show proved predicate pushdowns for the pipeline traced so far."""
    from IPython.display import display

    display(magicpush_result(ip, line), raw=True)


def magicpush_cell(ip: Any, line: str = "", body: str = "") -> None:
    """%%magicpush: run the cell, then show proved pushdowns for the pipeline it ends in."""
    from IPython.display import display

    display(magicpush_result(ip, line, body), raw=True)
