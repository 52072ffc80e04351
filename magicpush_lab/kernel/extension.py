"""`%load_ext magicpush_lab`: trace the notebook's PySpark calls and offer `%magicpush`.

Loading is idempotent; unloading removes the hooks and restores PySpark.
"""

from __future__ import annotations

import shlex
from typing import Any

from magicpush_lab.capture.tracer import Tracer

_loaded: dict[int, "_Hooks"] = {}


class _Hooks:
    def __init__(self, ip: Any, tracer: Tracer) -> None:
        self.ip = ip
        self.tracer = tracer

    def pre_run_cell(self, info: Any) -> None:
        try:
            raw = info.raw_cell
            try:
                transformed = self.ip.transform_cell(raw)
            except Exception:
                transformed = raw
            number = self.ip.execution_count
            name = self.ip.compile.get_code_name(raw, transformed, number)
            self.tracer.begin_cell(number, raw, name, transformed, getattr(info, "cell_id", None))
        except Exception as err:  # never get in the way of running the cell
            self.tracer._warn(f"pre_run_cell: {type(err).__name__}: {err}")

    def post_run_cell(self, result: Any) -> None:
        try:
            self.tracer.end_cell(self.ip.user_ns)
        except Exception as err:
            self.tracer._warn(f"post_run_cell: {type(err).__name__}: {err}")


def load(ip: Any) -> Tracer:
    """Install tracing and the `%magicpush` magic in `ip`; loading twice changes nothing."""
    hooks = _loaded.get(id(ip))
    if hooks is not None:
        return hooks.tracer
    tracer = Tracer()
    tracer.install()
    hooks = _Hooks(ip, tracer)
    ip.events.register("pre_run_cell", hooks.pre_run_cell)
    ip.events.register("post_run_cell", hooks.post_run_cell)
    ip.register_magic_function(lambda line: magicpush(ip, line), "line", "magicpush")
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
    hooks.tracer.uninstall()


def tracer_of(ip: Any) -> Tracer | None:
    hooks = _loaded.get(id(ip))
    return hooks.tracer if hooks is not None else None


def magicpush_result(ip: Any, line: str = "") -> dict[str, str]:
    """The display data `%magicpush` shows: proved pushdowns of the trace so far, measured.

    Options: --no-measure (skip counting rows), --budget SECONDS (optimizer time),
    --all (every pipeline of the notebook, not only the longest).
    """
    from magicpush_lab.kernel.bundles import optimize_live
    from magicpush_lab.kernel.report import render, render_error

    tracer = tracer_of(ip)
    if tracer is None:
        return render_error("tracing is off; run %load_ext magicpush_lab first")
    try:
        args = shlex.split(line)
    except ValueError as err:
        return render_error(f"cannot read the options: {err}")
    measure, budget, every = True, 10.0, False
    while args:
        a = args.pop(0)
        if a == "--no-measure":
            measure = False
        elif a == "--all":
            every = True
        elif a == "--budget" and args:
            try:
                budget = float(args.pop(0))
            except ValueError:
                return render_error("--budget needs a number of seconds")
        else:
            return render_error(f"unknown option {a!r} (use --no-measure, --budget SECONDS, --all)")
    if not tracer.trace().events:
        return render_error("no PySpark DataFrame calls were traced yet; run the pipeline's cells first")
    try:
        result = optimize_live(tracer, None, measure=measure, time_budget=budget, all_pipelines=every)
    except NotImplementedError as err:
        return render_error(f"the optimizer is not available: {err}")
    except Exception as err:
        return render_error(f"the optimizer failed: {type(err).__name__}: {err}")
    return render(result)


def magicpush(ip: Any, line: str = "") -> None:
    """%magicpush: show proved predicate pushdowns for the pipeline traced so far."""
    from IPython.display import display

    display(magicpush_result(ip, line), raw=True)
