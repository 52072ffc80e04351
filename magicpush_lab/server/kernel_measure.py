"""The server's client of the notebook's live kernel: row counts and run times measured there.

The counts must come from the SparkSession the notebook uses, which lives in
the kernel process. The server sends one silent execute request whose only
work is a user expression calling `magicpush_lab.kernel.measure_bundle` (built
by `magicpush_lab.protocol.measure_expression`, which passes the requests as a
string literal made by `json.dumps`); no notebook code runs in the server
process. What to ask and how to read the answer into suggestions is assist.py's.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, Sequence

from magicpush_lab.driver.kernels import ChannelClosed, KernelGone, NoReply, ask, kernel_process
from magicpush_lab.protocol import (MEASURE_MIME, RUNTIME_MIME, TRACE_EXPRESSION, TRACE_MIME, measure_expression,
                                    runtime_expression)
from magicpush_lab.server.validation import RequestError, check_predicate
from magicpush_lab.suggestion import Suggestion

#: Counting rows runs Spark jobs and may wait behind a cell that is still running.
DEFAULT_TIMEOUT = 300.0


class MeasureError(Exception):
    """The kernel could not answer at all (no reply, error status, bad payload); `kind` says
    why in the words of the routes' errors."""

    def __init__(self, message: str, kind: str = "kernel_error") -> None:
        super().__init__(message)
        self.kind = kind


class KernelDied(MeasureError):
    """The kernel is dead, or died (or was restarted) while measuring."""

    def __init__(self, message: str, kind: str = "kernel_dead") -> None:
        super().__init__(message, kind)


def _expression_error(result: dict[str, Any]) -> MeasureError:
    ename = result.get("ename", "Error")
    evalue = result.get("evalue", "")
    if ename in ("ModuleNotFoundError", "ImportError") and "magicpush_lab" in evalue:
        return MeasureError("magicpush_lab is not installed in this kernel's environment", "not_installed_in_kernel")
    if ename in ("ModuleNotFoundError", "ImportError") and "'pyspark" in evalue:
        return MeasureError("PySpark is not installed in this kernel's environment", "no_pyspark")
    return MeasureError(f"{ename}: {evalue}" if evalue else ename)


async def _ask_kernel(kernel_id: str, kernel: Any, expression: str, timeout: float,
                      cancellable: bool = False) -> dict[str, Any]:
    """The reply content of `expression` evaluated silently in the kernel (driver.kernels.ask:
    one request of the server at a time per kernel; cancelling a `cancellable` one interrupts
    the kernel while it runs it), its failures in the words of the routes' errors."""
    try:
        return await ask(kernel_id, kernel, {"m": expression}, timeout, cancellable)
    except NoReply:
        raise MeasureError(f"the kernel did not answer the measure request within {timeout:g} s") from None
    except ChannelClosed as err:
        raise MeasureError(f"lost the kernel's shell channel: {err.error!r}") from err.error
    except KernelGone:
        raise KernelDied(
            "the kernel died (or was restarted) while measuring; its DataFrames are gone: "
            "rerun the notebook and optimize again"
        ) from None


def _payload(content: dict[str, Any], mime: str) -> Any:
    """The JSON the kernel's user expression answered with, under `mime`."""
    if content.get("status") != "ok":
        raise _expression_error(content)
    result = content.get("user_expressions", {}).get("m")
    if not isinstance(result, dict):
        raise MeasureError("the kernel's reply has no measure result")
    if result.get("status") != "ok":
        raise _expression_error(result)
    data = result.get("data", {})
    if mime not in data:
        raise MeasureError(
            f"the kernel's measure result has no {mime} data (got {sorted(data)})"
        )
    payload = data[mime]
    if isinstance(payload, str):  # some kernels send JSON mime data as text
        payload = json.loads(payload)
    return payload


def _parse_reply(content: dict[str, Any], expected: int) -> list[dict[str, Any]]:
    payload = _payload(content, MEASURE_MIME)
    if not isinstance(payload, list) or len(payload) != expected:
        raise MeasureError(f"expected {expected} measurement(s) from the kernel, got {payload!r:.200}")
    return payload


def refusal(request: dict[str, Any]) -> str | None:
    """Why the predicates of a measure or runtime request must not reach a kernel, or None.

    Every predicate is built into a Spark Column in the kernel: one calling a function off the
    contract's allow-list (reflect, input_file_name, udf...) or too big to analyse is refused
    here, whatever route or request it came from.

    >>> print(refusal({"source_event": 1, "predicate_ir": {"kind": "Func", "name": "reflect", "args": []}}))
    'predicate_ir.name' is "reflect", which the engine never writes into a predicate: only pure Spark functions are sent to a kernel
    """
    try:
        check_predicate(request.get("predicate_ir"), "predicate_ir")
        for i, alternative in enumerate(request.get("alternatives") or ()):
            check_predicate(alternative, f"alternatives[{i}]")
    except RequestError as err:
        return err.message
    return None


async def measure_on_kernel(kernel_manager: Any, kernel_id: str, requests: Sequence[dict[str, Any]],
                            timeout: float = DEFAULT_TIMEOUT) -> list[dict[str, Any]]:
    """The live kernel `kernel_id`'s measurement of each request (assist.measure_requests): one
    measurement or {"error": ...} per request; a request whose predicate may not reach a kernel
    (`refusal`) is answered here and never sent. Raises MeasureError when the kernel cannot
    measure at all (KernelDied when it is dead or died meanwhile)."""
    if not requests:
        return []
    refused = [refusal(r) if isinstance(r, dict) else "a request must be an object" for r in requests]
    sent = [r for r, why in zip(requests, refused) if why is None]
    answers: list[dict[str, Any]] = []
    if sent:
        if kernel_id not in kernel_manager:
            # the kernel was shut down while the optimizer ran
            raise MeasureError(f"kernel {kernel_id} is no longer running")
        kernel = kernel_manager.get_kernel(kernel_id)
        content = await _ask_kernel(kernel_id, kernel, measure_expression(sent), timeout, cancellable=True)
        answers = _parse_reply(content, len(sent))
    counted = iter(answers)
    return [next(counted) if why is None else {"error": f"not sent to the kernel: {why}"} for why in refused]


async def trace_on_kernel(kernel_manager: Any, kernel_id: str, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """The trace the tracer in kernel `kernel_id` has recorded (kernel.trace_bundle), pulled by
    the server itself: it never passes through the browser. MeasureError with kind
    `tracing_off` when the kernel does not trace, `kernel_dead`, `not_installed_in_kernel`..."""
    if kernel_id not in kernel_manager:
        raise MeasureError(f"kernel {kernel_id} is no longer running", "unknown_kernel")
    kernel = kernel_manager.get_kernel(kernel_id)
    if await kernel_process(kernel) is None:
        raise KernelDied(f"kernel {kernel_id} is not alive: restart it and run the notebook")
    content = await _ask_kernel(kernel_id, kernel, TRACE_EXPRESSION, timeout)
    payload = _payload(content, TRACE_MIME)
    if not isinstance(payload, dict):
        raise MeasureError(f"the kernel's trace is not an object: {payload!r:.100}")
    if payload.get("tracing") is False:
        raise MeasureError("Tracing is off in this kernel (the extension was unloaded, or never loaded)",
                           "tracing_off")
    return payload


#: What the kernel's runtime answer carries (kernel/bundles.runtime_result).
RUNTIME_KEYS = ("original_seconds", "rewritten_seconds", "median_original", "median_rewritten", "speedup",
                "outputs_equal", "note")


def runtime_request(suggestion: Suggestion, runs: int | None = None,
                    time_limit: float | None = None) -> dict[str, Any]:
    """What the kernel is asked to time for `suggestion` (kernel/bundles.runtime_result).

    >>> s = Suggestion("df", "v > 1", "equivalent", (), (), 2, {"kind": "Lit"}, late_filter_event=5, sink_event=7)
    >>> runtime_request(s, runs=5)
    {'source_event': 2, 'predicate_ir': {'kind': 'Lit'}, 'kind': 'equivalent', 'late_filter_event': 5, 'sink_event': 7, 'runs': 5}
    """
    request: dict[str, Any] = {
        "source_event": suggestion.source_event, "predicate_ir": suggestion.predicate_ir, "kind": suggestion.kind,
        "late_filter_event": suggestion.late_filter_event, "sink_event": suggestion.sink_event,
    }
    if runs is not None:
        request["runs"] = runs
    if time_limit is not None:
        request["time_limit"] = time_limit
    return request


async def runtime_on_kernel(kernel_manager: Any, kernel_id: str, request: dict[str, Any],
                            timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """Time one suggestion's pipeline on the live kernel `kernel_id`: the kernel's answer, which
    is either the runtime result or {"error", "kind"}. KernelDied for a dead kernel, MeasureError
    when the kernel does not answer usefully, or (kind `invalid_field`) when the predicate may not
    reach a kernel."""
    why = refusal(request)
    if why is not None:
        raise MeasureError(f"not sent to the kernel: {why}", "invalid_field")
    if kernel_id not in kernel_manager:
        raise MeasureError(f"kernel {kernel_id} is no longer running")
    kernel = kernel_manager.get_kernel(kernel_id)
    if await kernel_process(kernel) is None:
        raise KernelDied(f"kernel {kernel_id} is not alive: restart it and rerun the notebook")
    content = await _ask_kernel(kernel_id, kernel, runtime_expression(request), timeout, cancellable=True)
    payload = _payload(content, RUNTIME_MIME)
    if not isinstance(payload, dict) or not ("error" in payload or all(k in payload for k in RUNTIME_KEYS)):
        raise MeasureError(f"malformed runtime answer from the kernel: {payload!r:.200}")
    return payload


def kernel_measurer(kernel_manager: Any, kernel_id: str, loop: asyncio.AbstractEventLoop,
                    seconds_left: Callable[[], float | None] = lambda: None) -> Callable[[list[dict[str, Any]]],
                                                                                      list[dict[str, Any]]]:
    """The kernel `kernel_id` as an assist.Measurer for a thread that is not the event loop's: the
    kernel client runs on the server's event loop, the thread waits for its answer. The wait is
    at most DEFAULT_TIMEOUT, and at most `seconds_left()` when that says a number (a replay's
    deadline)."""
    def measure(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        left = seconds_left()
        if left is not None and left <= 0:
            raise MeasureError("the request's deadline passed before the rows were counted")
        timeout = DEFAULT_TIMEOUT if left is None else min(DEFAULT_TIMEOUT, left)
        return asyncio.run_coroutine_threadsafe(
            measure_on_kernel(kernel_manager, kernel_id, requests, timeout), loop).result()

    return measure
