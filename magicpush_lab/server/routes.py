"""HTTP routes of the server extension, under `<base_url>/magicpush-lab/`.

POST optimize: trace (+ notebook cells) -> proved suggestions, measured on the
notebook's kernel when asked. POST measure: suggestions -> their row counts on the
notebook's kernel. POST runtime: one suggestion -> the run time of its pipeline on the
notebook's kernel, as written and with the filter at the source. POST replay: a saved notebook under the server's
root directory, replayed in a fresh kernel with tracing -> the same result.
GET health: version and engine dependencies.

Every request and answer is described by contract.schema.json; docs/security.md says who may
call which route (jupyter_server's authorizer decides) and what bounds each one's work.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
import importlib
import importlib.metadata
import json
import os
import re
from pathlib import Path
from typing import Any, Callable

import tornado.web
from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from magicpush_lab.assist import Measurer, apply_measurements, measure_requests, optimize_and_measure
from magicpush_lab.budget import DEFAULT_SECONDS, Budget
from magicpush_lab.capture.trace import Trace, TraceTooLarge
from magicpush_lab.server.kernel_measure import (
    DEFAULT_TIMEOUT,
    KernelDied,
    MeasureError,
    kernel_measurer,
    measure_on_kernel,
    runtime_on_kernel,
    runtime_request,
    trace_on_kernel,
)
from magicpush_lab.server.scheduler import Busy, OptimizerQueue, in_thread
from magicpush_lab.server.validation import (
    MAX_ECHO,
    OptimizeRequest,
    RequestError,
    parse_measure_request,
    parse_optimize_request,
    parse_replay_request,
    parse_runtime_request,
    quoted,
    resolve_notebook_path,
)
from magicpush_lab.suggestion import Suggestion

ROUTE_PREFIX = "magicpush-lab"

#: Running code in a kernel is what jupyter_server's authorizer calls "execute" on "kernels"
#: (its own kernel websocket checks the same): optimize, measure, runtime and replay all may.
EXECUTE, KERNELS = "execute", "kernels"

#: The largest notebook file the replay route reads into the server's memory.
MAX_NOTEBOOK_BYTES = 50 * 1024 * 1024

#: The one optimizer thread every route's optimizations queue for, by user.
OPTIMIZER = OptimizerQueue()


class BaseHandler(APIHandler):
    """Shared error handling: every failure is a JSON `{"error", "kind"}` object, and no answer
    names a directory of the server or echoes more than a little of the request."""

    auth_resource = KERNELS

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, RequestError):
            message, kind = exc.message, exc.kind
        elif isinstance(exc, tornado.web.HTTPError):
            message = exc.log_message % exc.args if exc.log_message and exc.args else exc.log_message
            message = message or self._reason
            kind = "forbidden" if status_code == 403 else "http_error"
        elif exc is not None:
            message, kind = f"internal error ({type(exc).__name__}): {exc}", "internal_error"
        else:
            message, kind = self._reason, "http_error"
        self._finish_error(self.scrub(message), kind)

    def fail(self, err: RequestError) -> None:
        """Answer a client error with its own status."""
        self.set_status(err.status)
        details = {k: self.scrub(v) if isinstance(v, str) else v for k, v in err.details.items()}
        self._finish_error(self.scrub(err.message), err.kind, details)

    def _finish_error(self, message: str, kind: str, details: dict[str, Any] | None = None) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({**(details or {}), "error": message, "kind": kind}))

    def scrub(self, text: str) -> str:
        """`text` without the server's directories (its root, where Python's packages live) and
        cut to a readable length."""
        return scrub(text, self._root_dirs())

    def _root_dirs(self) -> list[str]:
        root = getattr(self.contents_manager, "root_dir", None)
        return [] if not root else sorted({str(root), os.path.realpath(str(root))}, key=len, reverse=True)

    @property
    def user_name(self) -> str:
        user = self.current_user
        return str(getattr(user, "username", None) or user or "anonymous")

    def client_gone(self) -> bool:
        stream = getattr(self.request.connection, "stream", None)
        return stream is not None and stream.closed()


_SITE_PACKAGES = re.compile(r"(?:/[^\s'\"/:,]+)+/(?:site|dist)-packages/")


def scrub(text: str, roots: list[str], most: int = 1000) -> str:
    """`text` without the given directories or any site-packages directory, at most `most` long.

    >>> scrub("/srv/nb/data.csv not found; see /usr/lib/python3/site-packages/pandas/io.py", ["/srv/nb"])
    'data.csv not found; see pandas/io.py'
    """
    for root in roots:
        text = text.replace(root.rstrip("/") + "/", "").replace(root, ".")
    text = _SITE_PACKAGES.sub("", text)
    return text if len(text) <= most else text[: most - 3] + "..."


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
    """Version and engine dependencies: any user the server lets in may read them."""

    @tornado.web.authenticated
    def get(self) -> None:
        self.finish(
            json.dumps({"version": _version(), "z3": _importable("z3"), "pyspark": _importable("pyspark")})
        )


class _Queued:
    """The optimizer's runner for one request (an assist.Runner): the optimization waits its
    turn in OPTIMIZER under the request's user, and leaves the queue if the client goes away."""

    def __init__(self, user: str) -> None:
        self.user = user
        self.job: concurrent.futures.Future[Any] | None = None

    def __call__(self, optimize: Callable[[], Any]) -> Any:
        self.job = OPTIMIZER.submit(self.user, optimize)
        return self.job.result()

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()


def cycle_in(trace: Trace) -> int | None:
    """An event that is, through its inputs, an input of itself, or None. A traced DataFrame is
    made from DataFrames made before it, so a real trace has none; the engine walks inputs
    recursively and must never be handed one (Kahn's algorithm, no recursion).

    >>> from magicpush_lab.capture.trace import Event
    >>> cycle_in(Trace(events=(Event(1, "filter", (2,), None), Event(2, "filter", (1,), None))))
    1
    >>> cycle_in(Trace(events=(Event(1, "range", (), None), Event(2, "filter", (1, 7), None))))
    """
    ids = {e.id for e in trace.events}
    waiting = {e.id: len({i for i in e.inputs if i in ids}) for e in trace.events}
    users: dict[int, list[int]] = {}
    for e in trace.events:
        for i in {i for i in e.inputs if i in ids}:
            users.setdefault(i, []).append(e.id)
    ready = [i for i, n in waiting.items() if n == 0]
    while ready:
        for user in users.get(ready.pop(), ()):
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    return min((i for i, n in waiting.items() if n > 0), default=None)


def _read_trace(trace_json: dict[str, Any]) -> Callable[[], Trace]:
    """The trace reader optimize_and_measure calls in the optimizer thread, within the budget:
    whatever a client's trace makes the reader raise is the client's 400, never a 500."""
    def read() -> Trace:
        try:
            trace = Trace.from_json(trace_json)
            looped = cycle_in(trace)
            if looped is not None:
                raise ValueError(f"event {looped} is made, through its inputs, from itself")
            return trace
        except TraceTooLarge as err:
            raise RequestError(f"the trace is too large: {err}", status=413, kind="trace_too_large") from None
        except RecursionError:
            raise RequestError("invalid trace: it nests too deeply", kind="invalid_trace") from None
        except Exception as err:  # noqa: BLE001 - ValueError mostly; Overflow, Type... on odd input
            raise RequestError(f"invalid trace: {str(err)[:300]}", kind="invalid_trace") from None

    return read


def _optimize(request: OptimizeRequest, trace_json: dict[str, Any], budget: Budget, measurer: Measurer | None,
              run: _Queued) -> Any:
    """Optimize and measure (assist.optimize_and_measure), from a request thread; the trace is
    read in the optimizer thread, within the budget."""
    cells = [cell.source for cell in request.cells] if request.cells else None
    ids = [cell.id for cell in request.cells] if request.cells else None
    try:
        return optimize_and_measure(_read_trace(trace_json), cells, budget, measurer, cell_ids=ids,
                                    all_pipelines=request.all_pipelines, time_limit=request.measure_time_limit,
                                    run=run)
    except RecursionError:  # a pipeline deeper than the engine can walk: the request asked too much
        raise RequestError("the trace's pipeline is too deep to optimize", status=413,
                           kind="trace_too_large") from None


# why the server could not pull a trace from the kernel -> HTTP status
_TRACE_ERROR_STATUS = {"unknown_kernel": 404, "kernel_dead": 409, "tracing_off": 409,
                       "not_installed_in_kernel": 409, "no_pyspark": 409, "kernel_error": 500}


async def _pulled_trace(kernel_manager: Any, kernel_id: str) -> dict[str, Any]:
    try:
        return await trace_on_kernel(kernel_manager, kernel_id)
    except MeasureError as err:
        raise RequestError(str(err), status=_TRACE_ERROR_STATUS.get(err.kind, 500), kind=err.kind) from None


def _busy(err: Busy) -> RequestError:
    return RequestError(f"the optimizer is busy: {err}; try again when one has finished", status=429, kind="busy")


def _unknown_kernel(kernel_id: str) -> RequestError:
    shown = kernel_id if len(kernel_id) <= MAX_ECHO else kernel_id[: MAX_ECHO - 3] + "..."
    return RequestError(f"no running kernel with id {shown!r}", status=404, kind="unknown_kernel")


class OptimizeHandler(BaseHandler):
    _budget: Budget | None = None
    _queued: _Queued | None = None

    def on_connection_close(self) -> None:
        # the client cancelled (or went away): stop proving for nobody, leave the queue
        if self._budget is not None:
            self._budget.cancel()
        if self._queued is not None:
            self._queued.cancel()

    @tornado.web.authenticated
    @authorized(EXECUTE, KERNELS)
    async def post(self) -> None:
        try:
            request = await in_thread(parse_optimize_request, self.request.body)
            if request.kernel_id is not None and request.kernel_id not in self.kernel_manager:
                raise _unknown_kernel(request.kernel_id)
            self._budget = Budget(request.time_budget if request.time_budget is not None else DEFAULT_SECONDS)
            self._queued = _Queued(self.user_name)
            measurer = None
            if request.measure and request.kernel_id is not None:
                measurer = kernel_measurer(self.kernel_manager, request.kernel_id, asyncio.get_running_loop())
            trace_json = request.trace
            if trace_json is None:  # the kernel's trace goes to the server directly, not through the browser
                trace_json = await _pulled_trace(self.kernel_manager, str(request.kernel_id))
            result = await in_thread(_optimize, request, trace_json, self._budget, measurer, self._queued)
        except RequestError as err:
            self.fail(err)
            return
        except Busy as err:
            self.fail(_busy(err))
            return
        except concurrent.futures.CancelledError:
            return  # left the queue: its client is gone
        if self.client_gone():
            return  # cancelled: nobody to answer
        if request.measure and request.kernel_id is None and result.suggestions:
            result = dataclasses.replace(
                result, measure_errors=("not measured: the request names no kernel to count rows on",))
        result = dataclasses.replace(result, measure_errors=tuple(self.scrub(e) for e in result.measure_errors))
        self.finish(json.dumps(result.to_json(notebook=request.notebook_path)))


def unmeasured(s: Suggestion) -> Suggestion:
    """`s` without the figures a client sent with it: only the kernel's own counts may show
    as counts, so a suggestion the kernel could not measure shows none.

    >>> s = Suggestion("df", "p", "superset", (), (), 0, {}).measured(1000, 10)
    >>> unmeasured(s).rows_before, unmeasured(s).row_reduction, unmeasured(s).estimated
    (None, None, False)
    """
    return dataclasses.replace(s, rows_before=None, rows_after=None, row_reduction=None, estimated=False,
                               scan_filters=None, ranked=None,
                               alternatives=tuple(unmeasured(a) for a in s.alternatives))


class _KernelWorkHandler(BaseHandler):
    """A route whose work runs in the notebook's kernel: when the client goes away (the sidebar's
    Cancel), the work is cancelled, which interrupts the kernel while it runs it
    (driver.kernels.ask) and so cancels its Spark jobs."""

    _work: asyncio.Future[Any] | None = None

    def on_connection_close(self) -> None:
        if self._work is not None:
            self._work.cancel()

    async def in_kernel(self, work: Any) -> Any:
        self._work = asyncio.ensure_future(work)
        return await self._work


class MeasureHandler(_KernelWorkHandler):
    """Row counts for suggestions already shown: the sidebar shows them first, then measures."""

    @tornado.web.authenticated
    @authorized(EXECUTE, KERNELS)
    async def post(self) -> None:
        try:
            request = await in_thread(parse_measure_request, self.request.body)
            if request.kernel_id not in self.kernel_manager:
                raise _unknown_kernel(request.kernel_id)
        except RequestError as err:
            self.fail(err)
            return
        suggestions = tuple(unmeasured(s) for s in request.suggestions)
        requests = measure_requests(suggestions, request.measure_time_limit, request.sample_fraction)
        try:
            measured = apply_measurements(
                suggestions, await self.in_kernel(measure_on_kernel(self.kernel_manager, request.kernel_id, requests)))
            suggestions, errors = measured.suggestions, list(measured.errors)
        except MeasureError as err:
            errors = [str(err)]
        except asyncio.CancelledError:
            if self.client_gone():
                return  # Cancel: the kernel was interrupted, nobody to answer
            raise
        self.finish(json.dumps({"suggestions": [s.to_json() for s in suggestions],
                                "measure_errors": [self.scrub(e) for e in errors]}))


# The kernel's {"error", "kind"} answers to a runtime request -> HTTP status.
_RUNTIME_ERROR_STATUS = {"tracing_off": 409, "stale_suggestion": 409, "bad_request": 400, "runtime_failed": 500}

# What Spark or PySpark raise when the predicate does not fit the kernel's source (a column it
# has not, a function called with the wrong arguments): the request's fault, not the server's.
_PREDICATE_ERRORS = ("AnalysisException", "ParseException", "PySparkTypeError", "PySparkValueError", "TypeError")


class RuntimeHandler(_KernelWorkHandler):
    """Run time of one suggestion's pipeline, original against rewritten, on the notebook's kernel."""

    @tornado.web.authenticated
    @authorized(EXECUTE, KERNELS)
    async def post(self) -> None:
        from magicpush_lab.runtime import DEFAULT_TIME_LIMIT

        try:
            request = await in_thread(parse_runtime_request, self.request.body)
            if request.kernel_id not in self.kernel_manager:
                raise _unknown_kernel(request.kernel_id)
            kernel_request = runtime_request(request.suggestion, request.runs, request.time_limit)
            # the kernel may first finish a running cell; then the runs have their own time limit
            timeout = DEFAULT_TIMEOUT + (request.time_limit or DEFAULT_TIME_LIMIT)
            try:
                answer = await self.in_kernel(
                    runtime_on_kernel(self.kernel_manager, request.kernel_id, kernel_request, timeout))
            except asyncio.CancelledError:
                if self.client_gone():
                    return  # Cancel: the kernel was interrupted, nobody to answer
                raise
            except KernelDied as err:
                raise RequestError(str(err), status=409, kind="kernel_dead") from None
            except MeasureError as err:
                if err.kind == "invalid_field":
                    raise RequestError(str(err), kind="invalid_field") from None
                if request.kernel_id not in self.kernel_manager:
                    raise RequestError(str(err), status=404, kind="unknown_kernel") from None
                raise RequestError(str(err), status=500, kind="kernel_error") from None
            if "error" in answer:
                kind = str(answer.get("kind", "runtime_failed"))
                message = str(answer["error"])
                if kind == "runtime_failed" and message.startswith(_PREDICATE_ERRORS):
                    raise RequestError(f"'suggestion.predicate_ir' does not fit the kernel's pipeline: {message}",
                                       kind="invalid_field")
                raise RequestError(message, status=_RUNTIME_ERROR_STATUS.get(kind, 500), kind=kind)
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
    """A failing cell (or a kernel that died, or the deadline) while replaying, as a 422 naming
    the cell."""
    return RequestError(
        _relative(str(err), path, relative), status=422, kind="replay_failed",
        details={"cell_index": err.cell_index, "ename": err.ename, "evalue": err.evalue, "where": err.where},
    )


class ReplayHandler(BaseHandler):
    """Replay a notebook under the server's root in a kernel of the server's kernel manager."""

    _budget: Budget | None = None
    _task: asyncio.Future[Any] | None = None
    _queued: _Queued | None = None

    def on_connection_close(self) -> None:
        # the client went away: stop the replay, its kernel and its optimization
        for stop in (self._budget, self._queued, self._task):
            if stop is not None:
                stop.cancel()

    @tornado.web.authenticated
    @authorized(EXECUTE, KERNELS)
    async def post(self) -> None:
        from magicpush_lab.driver.notebook import read_document
        from magicpush_lab.driver.replay import ReplayError
        from magicpush_lab.server.replay import replay_and_optimize_on_server

        # the notebook is read as the contents API would read it for this user
        if not await ensure_async(self.authorizer.is_authorized(self, self.current_user, "read", "contents")):
            raise tornado.web.HTTPError(403, "User is not authorized to read on resource: contents.")
        try:
            request = await in_thread(parse_replay_request, self.request.body)
            root = Path(self.contents_manager.root_dir).resolve()
            path = resolve_notebook_path(root, request.path, getattr(self.contents_manager, "allow_hidden", False))
            if path.stat().st_size > MAX_NOTEBOOK_BYTES:
                raise RequestError(f"{quoted(request.path)} is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB",
                                   status=413, kind="file_too_large")
            try:
                document = await in_thread(read_document, path)
            except (ValueError, OSError) as err:  # not notebook JSON, unreadable
                raise RequestError(f"cannot read {quoted(request.path)} as a notebook: "
                                   f"{_relative(str(err), path, request.path)}", kind="not_a_notebook") from None
            self._budget = Budget(request.time_budget if request.time_budget is not None else DEFAULT_SECONDS)
            self._queued = _Queued(self.user_name)
            self._task = asyncio.ensure_future(replay_and_optimize_on_server(
                self.kernel_manager, root, document, timeout=request.timeout, deadline=request.deadline,
                measure=request.measure, budget=self._budget, run=self._queued))
            try:
                result = await self._task
            except ReplayError as err:
                raise _replay_error(err, path, request.path) from None
            except RuntimeError as err:  # the kernel would not start
                raise RequestError(f"cannot start a kernel to replay in: {err}", status=500,
                                   kind="kernel_error") from None
        except RequestError as err:
            self.fail(err)
            return
        except Busy as err:
            self.fail(_busy(err))
            return
        except (asyncio.CancelledError, concurrent.futures.CancelledError):
            if self.client_gone():
                return  # the replay stopped because its client went away
            raise
        errors = tuple(self.scrub(_relative(e, path, request.path)) for e in result.measure_errors)
        self.finish(json.dumps(dataclasses.replace(result, measure_errors=errors).to_json(notebook=request.path)))


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
