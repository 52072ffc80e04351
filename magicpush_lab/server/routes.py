"""HTTP routes of the server extension, under `<base_url>/magicpush-lab/`.

POST optimize: trace (+ notebook cells) -> proved suggestions, measured on the
notebook's kernel when asked. POST measure: suggestions -> their row counts on the
notebook's kernel. POST runtime: one suggestion -> the run time of its pipeline on the
notebook's kernel, as written and with the filter at the source. POST replay: a saved notebook under the server's
root directory, replayed in a fresh kernel with tracing -> the same result.
GET health: version and engine dependencies.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import importlib
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from magicpush_lab import __version__
from magicpush_lab.capture.trace import Trace
from magicpush_lab.pushdown import Budget
from magicpush_lab.server.kernel_measure import (
    DEFAULT_TIMEOUT,
    KernelDied,
    MeasureError,
    measure_on_kernel,
    runtime_on_kernel,
    runtime_request,
)
from magicpush_lab.server.validation import (
    OptimizeRequest,
    ReplayRequest,
    RequestError,
    parse_measure_request,
    parse_optimize_request,
    parse_replay_request,
    parse_runtime_request,
    resolve_notebook_path,
)

ROUTE_PREFIX = "magicpush-lab"
DEFAULT_BUDGET = 10.0  # seconds of search and proof when the request names none

# Search and Z3 are CPU-bound: run them off the tornado event loop, one
# optimization at a time so that concurrent requests do not starve the server.
_OPTIMIZER_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="magicpush-optimize")

# Replays wait on a kernel for minutes: their own threads, so that they never hold up the
# optimizer pool (their optimization step still goes through it).
_REPLAY_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="magicpush-replay")


class BaseHandler(APIHandler):
    """Shared error handling: every failure is a JSON `{"error", "kind"}` object."""

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, RequestError):
            message, kind = exc.message, exc.kind
        elif isinstance(exc, tornado.web.HTTPError):
            message = exc.log_message % exc.args if exc.log_message and exc.args else exc.log_message
            message = message or self._reason
            kind = "http_error"
        elif exc is not None:
            message, kind = f"{type(exc).__name__}: {exc}", "internal_error"
        else:
            message, kind = self._reason, "http_error"
        self._finish_error(message, kind)

    def fail(self, err: RequestError) -> None:
        """Answer a client error with its own status."""
        self.set_status(err.status)
        self._finish_error(err.message, err.kind, err.details)

    def _finish_error(self, message: str, kind: str, details: dict[str, Any] | None = None) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({**(details or {}), "error": message, "kind": kind}))


@functools.lru_cache(maxsize=None)
def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except Exception:  # noqa: BLE001 - any import failure means "not usable"
        return False
    return True


class HealthHandler(BaseHandler):
    @tornado.web.authenticated
    def get(self) -> None:
        self.finish(
            json.dumps({"version": __version__, "z3": _importable("z3"), "pyspark": _importable("pyspark")})
        )


def _optimize(request: OptimizeRequest, budget: Budget) -> dict[str, Any]:
    """Run the engine (in a worker thread) and return its result object."""
    from magicpush_lab.pipeline import optimize_trace

    try:
        trace = Trace.from_json(request.trace)
    except ValueError as err:
        raise RequestError(f"invalid trace: {err}", kind="invalid_trace") from err
    cells = [cell.source for cell in request.cells] if request.cells else None
    ids = [cell.id for cell in request.cells] if request.cells else None
    return optimize_trace(trace, cells, cell_ids=ids, all_pipelines=request.all_pipelines, budget=budget)


async def _measured(kernel_manager: Any, kernel_id: str, suggestions: Any,
                    time_limit: float | None, sample_fraction: float | None = None) -> tuple[Any, list[str]]:
    """The suggestions with their rows counted on the kernel, and why some are not; a kernel
    that cannot measure at all leaves them as they are."""
    try:
        outcome = await measure_on_kernel(kernel_manager, kernel_id, suggestions, time_limit=time_limit,
                                          sample_fraction=sample_fraction)
    except MeasureError as err:
        return suggestions, [str(err)]
    return outcome.suggestions, list(outcome.errors)


def _client_gone(handler: tornado.web.RequestHandler) -> bool:
    stream = getattr(handler.request.connection, "stream", None)
    return stream is not None and stream.closed()


class OptimizeHandler(BaseHandler):
    _budget: Budget | None = None

    def on_connection_close(self) -> None:
        # the client cancelled (or went away): stop proving for nobody
        if self._budget is not None:
            self._budget.cancel()

    @tornado.web.authenticated
    async def post(self) -> None:
        try:
            request = parse_optimize_request(self.request.body)
            if request.kernel_id is not None and request.kernel_id not in self.kernel_manager:
                raise RequestError(
                    f"no running kernel with id {request.kernel_id!r}", status=404, kind="unknown_kernel"
                )
            self._budget = Budget(request.time_budget if request.time_budget is not None else DEFAULT_BUDGET)
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(_OPTIMIZER_POOL, _optimize, request, self._budget)
        except RequestError as err:
            self.fail(err)
            return
        if _client_gone(self):
            return  # cancelled: nobody to answer

        suggestions = result.suggestions
        measure_errors: list[str] = []
        if request.measure and suggestions:
            if request.kernel_id is None:
                measure_errors = ["not measured: the request names no kernel to count rows on"]
            else:
                suggestions, measure_errors = await _measured(
                    self.kernel_manager, request.kernel_id, suggestions, request.measure_time_limit)

        result = dataclasses.replace(result, suggestions=tuple(suggestions))
        body = result.to_json(notebook=request.notebook_path)
        body["measure_errors"] = measure_errors
        self.finish(json.dumps(body))


class MeasureHandler(BaseHandler):
    """Row counts for suggestions already shown: the sidebar shows them first, then measures."""

    @tornado.web.authenticated
    async def post(self) -> None:
        try:
            request = parse_measure_request(self.request.body)
            if request.kernel_id not in self.kernel_manager:
                raise RequestError(
                    f"no running kernel with id {request.kernel_id!r}", status=404, kind="unknown_kernel"
                )
        except RequestError as err:
            self.fail(err)
            return
        suggestions, errors = await _measured(
            self.kernel_manager, request.kernel_id, request.suggestions, request.measure_time_limit,
            request.sample_fraction)
        self.finish(json.dumps({"suggestions": [s.to_json() for s in suggestions], "measure_errors": errors}))


# The kernel's {"error", "kind"} answers to a runtime request -> HTTP status.
_RUNTIME_ERROR_STATUS = {"tracing_off": 409, "stale_suggestion": 409, "bad_request": 400, "runtime_failed": 500}


class RuntimeHandler(BaseHandler):
    """Run time of one suggestion's pipeline, original against rewritten, on the notebook's kernel."""

    @tornado.web.authenticated
    async def post(self) -> None:
        from magicpush_lab.runtime import DEFAULT_TIME_LIMIT

        try:
            request = parse_runtime_request(self.request.body)
            if request.kernel_id not in self.kernel_manager:
                raise RequestError(
                    f"no running kernel with id {request.kernel_id!r}", status=404, kind="unknown_kernel"
                )
            kernel_request = runtime_request(request.suggestion, request.runs, request.time_limit)
            # the kernel may first finish a running cell; then the runs have their own time limit
            timeout = DEFAULT_TIMEOUT + (request.time_limit or DEFAULT_TIME_LIMIT)
            try:
                answer = await runtime_on_kernel(self.kernel_manager, request.kernel_id, kernel_request, timeout)
            except KernelDied as err:
                raise RequestError(str(err), status=409, kind="kernel_dead") from None
            except MeasureError as err:
                if request.kernel_id not in self.kernel_manager:
                    raise RequestError(str(err), status=404, kind="unknown_kernel") from None
                raise RequestError(str(err), status=500, kind="kernel_error") from None
            if "error" in answer:
                kind = str(answer.get("kind", "runtime_failed"))
                raise RequestError(str(answer["error"]), status=_RUNTIME_ERROR_STATUS.get(kind, 500), kind=kind)
        except RequestError as err:
            self.fail(err)
            return
        self.finish(json.dumps(answer))


def _relative(message: str, path: Any, relative: str) -> str:
    """`message` naming the notebook as the client did: no server paths in answers.

    >>> _relative("/srv/nb/a.py: cell 1 failed", "/srv/nb/a.py", "nb/a.py")
    'nb/a.py: cell 1 failed'
    """
    return message.replace(str(path), relative)


def _replay_error(err: Any, path: Any, relative: str) -> RequestError:
    """A failing cell (or a kernel that died) while replaying, as a 422 naming the cell."""
    return RequestError(
        _relative(str(err), path, relative), status=422, kind="replay_failed",
        details={"cell_index": err.cell_index, "ename": err.ename, "evalue": err.evalue, "where": err.where},
    )


def _replay(path: Any, request: ReplayRequest) -> dict[str, Any]:
    """Replay the notebook at `path` (in a worker thread), optimize its trace and measure on the
    replayed kernel; the result object of optimize, with `measure_errors`. The notebook file is
    only read: Replay runs a copy of it."""
    from magicpush_lab.capture.replay import Replay, ReplayError, read_document
    from magicpush_lab.pipeline import optimize_trace
    from magicpush_lab.server.kernel_measure import apply_measurements, measure_requests

    try:
        read_document(path)
    except (ValueError, OSError) as err:  # not notebook JSON, unreadable
        raise RequestError(f"cannot read {request.path!r} as a notebook: {_relative(str(err), path, request.path)}",
                           kind="not_a_notebook") from None
    replay = Replay(path, timeout=request.timeout)
    try:
        replay.__enter__()
    except ReplayError as err:
        raise _replay_error(err, path, request.path) from None
    except RuntimeError as err:  # the kernel would not start
        raise RequestError(f"cannot start a kernel to replay in: {_relative(str(err), path, request.path)}",
                           status=500, kind="kernel_error") from None
    try:
        options: dict[str, Any] = {"cell_ids": replay.notebook_cell_ids}
        if request.time_budget is not None:
            options["time_budget"] = request.time_budget
        # Z3 runs one optimization at a time: queue behind the optimize requests
        result = _OPTIMIZER_POOL.submit(optimize_trace, replay.trace, replay.notebook_cells, **options).result()
        measure_errors: list[str] = []
        if request.measure and result.suggestions:
            try:
                outcome = apply_measurements(result.suggestions, replay.measure(measure_requests(result.suggestions)))
                result = dataclasses.replace(result, suggestions=outcome.suggestions)
                measure_errors = list(outcome.errors)
            except Exception as err:  # the kernel died or would not answer: the suggestions stand
                measure_errors = [f"not measured: {_relative(str(err), path, request.path)}"]
        if replay.notes:  # the replay order is part of what the suggestions were computed on
            result = dataclasses.replace(result, notes=tuple(replay.notes) + tuple(result.notes))
    finally:
        replay.close()
    body = result.to_json(notebook=request.path)
    body["measure_errors"] = measure_errors
    return body


class ReplayHandler(BaseHandler):
    @tornado.web.authenticated
    async def post(self) -> None:
        try:
            request = parse_replay_request(self.request.body)
            path = resolve_notebook_path(self.contents_manager.root_dir, request.path)
            loop = asyncio.get_running_loop()
            body = await loop.run_in_executor(_REPLAY_POOL, _replay, path, request)
        except RequestError as err:
            self.fail(err)
            return
        self.finish(json.dumps(body))


def setup_handlers(web_app: Any) -> None:
    base_url = web_app.settings["base_url"]
    handlers = [
        (url_path_join(base_url, ROUTE_PREFIX, "optimize"), OptimizeHandler),
        (url_path_join(base_url, ROUTE_PREFIX, "health"), HealthHandler),
        (url_path_join(base_url, ROUTE_PREFIX, "replay"), ReplayHandler),
        (url_path_join(base_url, ROUTE_PREFIX, "measure"), MeasureHandler),
        (url_path_join(base_url, ROUTE_PREFIX, "runtime"), RuntimeHandler),
    ]
    web_app.add_handlers(".*$", handlers)
