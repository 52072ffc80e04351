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
import importlib.metadata
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from magicpush_lab.assist import (Measurer, apply_measurements, measure_requests, optimize_and_measure,
                                  replay_and_optimize)
from magicpush_lab.budget import DEFAULT_SECONDS, Budget
from magicpush_lab.capture.trace import Trace, TraceTooLarge
from magicpush_lab.server.kernel_measure import (
    DEFAULT_TIMEOUT,
    KernelDied,
    MeasureError,
    measure_on_kernel,
    runtime_on_kernel,
    runtime_request,
    trace_on_kernel,
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

# Search and Z3 are CPU-bound: run them off the tornado event loop, one
# optimization at a time so that concurrent requests do not starve the server.
_OPTIMIZER_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="magicpush-optimize")

# An optimize request's thread waits for the optimizer pool, then for its kernel's row counts:
# waiting threads of their own, so that measuring never holds up the next optimization.
_REQUEST_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="magicpush-request")

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


@functools.lru_cache(maxsize=None)
def _version() -> str:
    """The installed package's version (read from its metadata: the package's own module is
    the Jupyter entry point, above this one)."""
    try:
        return importlib.metadata.version("magicpush_lab")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class HealthHandler(BaseHandler):
    @tornado.web.authenticated
    def get(self) -> None:
        self.finish(
            json.dumps({"version": _version(), "z3": _importable("z3"), "pyspark": _importable("pyspark")})
        )


def _on_optimizer_thread(optimize: Callable[[], Any]) -> Any:
    """Run the optimizer in the one optimizer thread, queued behind the other requests."""
    return _OPTIMIZER_POOL.submit(optimize).result()


def _optimize(request: OptimizeRequest, trace_json: dict[str, Any], budget: Budget,
              measurer: Measurer | None) -> Any:
    """Optimize and measure (assist.optimize_and_measure), from a request thread; the trace is
    read in the optimizer thread, within the budget."""
    def read() -> Trace:
        try:
            return Trace.from_json(trace_json)
        except TraceTooLarge as err:
            raise RequestError(f"the trace is too large: {err}", status=413, kind="trace_too_large") from err
        except ValueError as err:
            raise RequestError(f"invalid trace: {err}", kind="invalid_trace") from err

    cells = [cell.source for cell in request.cells] if request.cells else None
    ids = [cell.id for cell in request.cells] if request.cells else None
    return optimize_and_measure(read, cells, budget, measurer, cell_ids=ids, all_pipelines=request.all_pipelines,
                                time_limit=request.measure_time_limit, run=_on_optimizer_thread)


# why the server could not pull a trace from the kernel -> HTTP status
_TRACE_ERROR_STATUS = {"unknown_kernel": 404, "kernel_dead": 409, "tracing_off": 409,
                       "not_installed_in_kernel": 409, "no_pyspark": 409, "kernel_error": 500}


async def _pulled_trace(kernel_manager: Any, kernel_id: str) -> dict[str, Any]:
    try:
        return await trace_on_kernel(kernel_manager, kernel_id)
    except MeasureError as err:
        raise RequestError(str(err), status=_TRACE_ERROR_STATUS.get(err.kind, 500), kind=err.kind) from None


def _kernel_measurer(kernel_manager: Any, kernel_id: str, loop: asyncio.AbstractEventLoop) -> Measurer:
    """The notebook's kernel as a measurer for a request thread: the kernel client runs on the
    server's event loop; the thread waits for its answer."""
    def measure(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return asyncio.run_coroutine_threadsafe(measure_on_kernel(kernel_manager, kernel_id, requests), loop).result()

    return measure


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
            self._budget = Budget(request.time_budget if request.time_budget is not None else DEFAULT_SECONDS)
            loop = asyncio.get_running_loop()
            measurer = None
            if request.measure and request.kernel_id is not None:
                measurer = _kernel_measurer(self.kernel_manager, request.kernel_id, loop)
            trace_json = request.trace
            if trace_json is None:  # the kernel's trace goes to the server directly, not through the browser
                trace_json = await _pulled_trace(self.kernel_manager, str(request.kernel_id))
            result = await loop.run_in_executor(_REQUEST_POOL, _optimize, request, trace_json, self._budget,
                                                measurer)
        except RequestError as err:
            self.fail(err)
            return
        if _client_gone(self):
            return  # cancelled: nobody to answer
        if request.measure and request.kernel_id is None and result.suggestions:
            result = dataclasses.replace(
                result, measure_errors=("not measured: the request names no kernel to count rows on",))
        self.finish(json.dumps(result.to_json(notebook=request.notebook_path)))


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
        requests = measure_requests(request.suggestions, request.measure_time_limit, request.sample_fraction)
        try:
            measured = apply_measurements(request.suggestions,
                                          await measure_on_kernel(self.kernel_manager, request.kernel_id, requests))
            suggestions, errors = measured.suggestions, list(measured.errors)
        except MeasureError as err:
            suggestions, errors = tuple(request.suggestions), [str(err)]
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
    replayed kernel (assist.replay_and_optimize); the result object of optimize. The notebook
    file is only read: Replay runs a copy of it. No answer names a path of the server."""
    from magicpush_lab.capture.replay import ReplayError

    budget = Budget(request.time_budget if request.time_budget is not None else DEFAULT_SECONDS)
    try:
        # Z3 runs one optimization at a time: queue behind the optimize requests
        result = replay_and_optimize(path, budget, timeout=request.timeout, measure=request.measure,
                                     run=_on_optimizer_thread).result
    except ReplayError as err:
        raise _replay_error(err, path, request.path) from None
    except (ValueError, OSError) as err:  # not notebook JSON, unreadable
        raise RequestError(f"cannot read {request.path!r} as a notebook: {_relative(str(err), path, request.path)}",
                           kind="not_a_notebook") from None
    except RuntimeError as err:  # the kernel would not start
        raise RequestError(f"cannot start a kernel to replay in: {_relative(str(err), path, request.path)}",
                           status=500, kind="kernel_error") from None
    result = dataclasses.replace(result, measure_errors=tuple(_relative(e, path, request.path)
                                                              for e in result.measure_errors))
    return result.to_json(notebook=request.path)


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
