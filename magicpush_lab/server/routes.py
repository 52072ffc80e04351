"""HTTP routes of the server extension, under `<base_url>/magicpush-lab/`.

POST optimize: trace (+ notebook cells) -> proved suggestions, measured on the
notebook's kernel when asked. GET health: version and engine dependencies.
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
from magicpush_lab.server.kernel_measure import MeasureError, measure_on_kernel
from magicpush_lab.server.validation import OptimizeRequest, RequestError, parse_optimize_request

ROUTE_PREFIX = "magicpush-lab"

# Search and Z3 are CPU-bound: run them off the tornado event loop, one
# optimization at a time so that concurrent requests do not starve the server.
_OPTIMIZER_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="magicpush-optimize")


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
        self._finish_error(err.message, err.kind)

    def _finish_error(self, message: str, kind: str) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": message, "kind": kind}))


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


def _optimize(request: OptimizeRequest) -> dict[str, Any]:
    """Run the engine (in a worker thread) and return its result object."""
    from magicpush_lab.pipeline import optimize_trace

    try:
        trace = Trace.from_json(request.trace)
    except ValueError as err:
        raise RequestError(f"invalid trace: {err}", kind="invalid_trace") from err
    cells = [cell.source for cell in request.cells] if request.cells else None
    ids = [cell.id for cell in request.cells] if request.cells else None
    options: dict[str, Any] = {"cell_ids": ids, "all_pipelines": request.all_pipelines}
    if request.time_budget is not None:
        options["time_budget"] = request.time_budget
    return optimize_trace(trace, cells, **options)


class OptimizeHandler(BaseHandler):
    @tornado.web.authenticated
    async def post(self) -> None:
        try:
            request = parse_optimize_request(self.request.body)
            if request.kernel_id is not None and request.kernel_id not in self.kernel_manager:
                raise RequestError(
                    f"no running kernel with id {request.kernel_id!r}", status=404, kind="unknown_kernel"
                )
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(_OPTIMIZER_POOL, _optimize, request)
        except RequestError as err:
            self.fail(err)
            return

        suggestions = result.suggestions
        measure_errors: list[str] = []
        if request.measure and suggestions:
            if request.kernel_id is None:
                measure_errors = ["not measured: the request names no kernel to count rows on"]
            else:
                try:
                    outcome = await measure_on_kernel(self.kernel_manager, request.kernel_id, suggestions)
                    suggestions, measure_errors = outcome.suggestions, list(outcome.errors)
                except MeasureError as err:
                    measure_errors = [str(err)]

        result = dataclasses.replace(result, suggestions=tuple(suggestions))
        body = result.to_json(notebook=request.notebook_path)
        body["measure_errors"] = measure_errors
        self.finish(json.dumps(body))


def setup_handlers(web_app: Any) -> None:
    base_url = web_app.settings["base_url"]
    handlers = [
        (url_path_join(base_url, ROUTE_PREFIX, "optimize"), OptimizeHandler),
        (url_path_join(base_url, ROUTE_PREFIX, "health"), HealthHandler),
    ]
    web_app.add_handlers(".*$", handlers)
