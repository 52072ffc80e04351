"""Hand-written validation of the `/magicpush-lab/` request bodies (optimize, replay, measure, runtime).

Every failure raises `RequestError` with a message naming the offending field,
so that the frontend can show it as it is.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

#: Largest accepted request body. Traces carry one analyzed plan per event, which
#: is verbose, but a notebook pipeline stays far below this.
MAX_BODY_BYTES = 20 * 1024 * 1024

#: Upper bound for the optimizer's time budget, in seconds.
MAX_TIME_BUDGET = 600.0

#: Upper bound for the exact row counts' time limit, in seconds.
MAX_MEASURE_TIME_LIMIT = 3600.0

#: Upper bound (and default) for one cell's run time when replaying a notebook, in seconds.
MAX_REPLAY_TIMEOUT = 3600.0
DEFAULT_REPLAY_TIMEOUT = 600.0


class RequestError(Exception):
    """An error the client can fix; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, *, status: int = 400, kind: str = "bad_request",
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.kind = kind
        # extra JSON fields of the error answer (the failing cell of a replay, say)
        self.details = dict(details or {})


@dataclass(frozen=True)
class NotebookCell:
    source: str
    cell_type: str
    id: str | None


@dataclass(frozen=True)
class OptimizeRequest:
    trace: dict[str, Any] | None  # None: the server pulls it from the kernel
    notebook_path: str | None
    cells: tuple[NotebookCell, ...]
    kernel_id: str | None
    measure: bool
    time_budget: float | None
    #: seconds for the exact row counts; past it they are estimated on a sample (None: the kernel's default)
    measure_time_limit: float | None = None
    all_pipelines: bool = False  # every pipeline of the notebook, not only the longest


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _expect(value: Any, kind: type | tuple[type, ...], field: str, expected: str) -> None:
    # bool is an int in Python, but never a valid number or string here
    if isinstance(value, bool) and kind is not bool:
        raise RequestError(f"'{field}' must be {expected}, got boolean", kind="invalid_field")
    if not isinstance(value, kind):
        raise RequestError(f"'{field}' must be {expected}, got {_type_name(value)}", kind="invalid_field")


def _optional_str(obj: dict[str, Any], key: str, field: str) -> str | None:
    value = obj.get(key)
    if value is not None:
        _expect(value, str, field, "a string or null")
    return value


def _parse_cells(notebook: dict[str, Any]) -> tuple[NotebookCell, ...]:
    raw_cells = notebook.get("cells", [])
    _expect(raw_cells, list, "notebook.cells", "an array")
    cells = []
    for i, raw in enumerate(raw_cells):
        field = f"notebook.cells[{i}]"
        _expect(raw, dict, field, "an object")
        if "source" not in raw:
            raise RequestError(f"'{field}.source' is missing", kind="missing_field")
        _expect(raw["source"], str, f"{field}.source", "a string")
        cell_type = raw.get("cell_type", "code")
        _expect(cell_type, str, f"{field}.cell_type", "a string")
        cells.append(NotebookCell(raw["source"], cell_type, _optional_str(raw, "id", f"{field}.id")))
    return tuple(cells)


def _load_object(body: bytes) -> dict[str, Any]:
    """The request body as a JSON object, or RequestError (too large, empty, not JSON, not an object)."""
    if len(body) > MAX_BODY_BYTES:
        raise RequestError(
            f"request body is {len(body)} bytes; the limit is {MAX_BODY_BYTES} bytes",
            status=413,
            kind="body_too_large",
        )
    if not body.strip():
        raise RequestError("request body is empty; expected a JSON object", kind="malformed_json")
    try:
        data = json.loads(body)
    except RecursionError as err:
        # json.loads recurses per nesting level: a deeply nested body is refused, not a crash
        raise RequestError("request body is nested too deeply", kind="malformed_json") from err
    except (ValueError, UnicodeDecodeError) as err:
        raise RequestError(f"request body is not valid JSON: {err}", kind="malformed_json") from err
    _expect(data, dict, "body", "a JSON object")
    return data


def _optional_seconds(data: dict[str, Any], key: str, upper: float) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    _expect(value, (int, float), key, "a number of seconds")
    if not math.isfinite(value) or not 0 < value <= upper:
        raise RequestError(
            f"'{key}' must be between 0 (exclusive) and {upper:g} seconds, got {value}", kind="invalid_field"
        )
    return float(value)


def parse_optimize_request(body: bytes) -> OptimizeRequest:
    """Parse and check an optimize request body.

    >>> req = parse_optimize_request(b'{"trace": {"events": []}, "measure": false}')
    >>> (req.measure, req.cells, req.kernel_id)
    (False, (), None)
    >>> parse_optimize_request(b'{"trace": []}')
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: 'trace' must be an object, got array
    """
    data = _load_object(body)

    trace = data.get("trace")
    if trace is not None:
        _expect(trace, dict, "trace", "an object")

    notebook = data.get("notebook") or {}
    _expect(notebook, dict, "notebook", "an object")
    path = _optional_str(notebook, "path", "notebook.path")
    cells = _parse_cells(notebook)

    kernel_id = _optional_str(data, "kernel_id", "kernel_id")
    if kernel_id == "":
        kernel_id = None
    if trace is None and kernel_id is None:
        raise RequestError("'trace' is missing, and there is no 'kernel_id' to pull it from", kind="missing_field")

    measure = data.get("measure", True)
    _expect(measure, bool, "measure", "a boolean")

    time_budget = data.get("time_budget")
    if time_budget is not None:
        _expect(time_budget, (int, float), "time_budget", "a number of seconds")
        if not math.isfinite(time_budget) or not 0 < time_budget <= MAX_TIME_BUDGET:
            raise RequestError(
                f"'time_budget' must be between 0 (exclusive) and {MAX_TIME_BUDGET:g} seconds, "
                f"got {time_budget}",
                kind="invalid_field",
            )
        time_budget = float(time_budget)

    measure_time_limit = _optional_seconds(data, "measure_time_limit", MAX_MEASURE_TIME_LIMIT)
    all_pipelines = data.get("all_pipelines", False)
    _expect(all_pipelines, bool, "all_pipelines", "a boolean")

    return OptimizeRequest(trace, path, cells, kernel_id, measure, time_budget, measure_time_limit, all_pipelines)


@dataclass(frozen=True)
class ReplayRequest:
    path: str
    timeout: float
    measure: bool
    time_budget: float | None


def parse_replay_request(body: bytes) -> ReplayRequest:
    """Parse and check a replay request body (the path is checked by `resolve_notebook_path`).

    >>> parse_replay_request(b'{"path": "nb/a.ipynb", "measure": false}')
    ReplayRequest(path='nb/a.ipynb', timeout=600.0, measure=False, time_budget=None)
    >>> parse_replay_request(b'{"path": 3}')
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: 'path' must be a string, got number
    """
    data = _load_object(body)
    if "path" not in data or data["path"] is None:
        raise RequestError("'path' is missing: the notebook to replay, relative to the server's root",
                           kind="missing_field")
    _expect(data["path"], str, "path", "a string")
    timeout = _optional_seconds(data, "timeout", MAX_REPLAY_TIMEOUT)
    if timeout is not None and timeout < 1:  # the notebook client counts whole seconds
        raise RequestError(f"'timeout' must be at least 1 second, got {timeout:g}", kind="invalid_field")
    measure = data.get("measure", True)
    _expect(measure, bool, "measure", "a boolean")
    time_budget = _optional_seconds(data, "time_budget", MAX_TIME_BUDGET)
    return ReplayRequest(data["path"], DEFAULT_REPLAY_TIMEOUT if timeout is None else timeout, measure, time_budget)


def resolve_notebook_path(root: str | os.PathLike[str], relative: str) -> Path:
    """The notebook `relative` names under `root`, resolved; RequestError unless it is a
    readable notebook file inside `root` (symlinks are followed before the check, so a
    link pointing out of the root is refused like `..`).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     _ = (Path(root) / "a.ipynb").write_text("{}")
    ...     resolve_notebook_path(root, "a.ipynb").name
    'a.ipynb'
    >>> resolve_notebook_path("/srv/notebooks", "../etc/passwd")
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: '../etc/passwd' is outside the server's root directory
    """
    from magicpush_lab.capture.replay import SUPPORTED

    outside = RequestError(f"{relative!r} is outside the server's root directory", status=403,
                           kind="path_outside_root")
    if not relative.strip() or "\x00" in relative:
        raise RequestError("'path' must name a notebook file", kind="invalid_field")
    pure = PurePosixPath(relative.replace("\\", "/"))
    if pure.is_absolute() or PureWindowsPath(relative).drive or ".." in pure.parts:
        raise outside
    base = Path(root).resolve()
    target = (base / pure).resolve()
    if target != base and base not in target.parents:
        raise outside
    if not target.exists():
        raise RequestError(f"no such file: {relative!r}", status=404, kind="not_found")
    if not target.is_file() or target.suffix not in SUPPORTED:
        raise RequestError(f"{relative!r} is not a notebook: expected an .ipynb file or a percent-format .py",
                           kind="not_a_notebook")
    return target


@dataclass(frozen=True)
class MeasureRequest:
    kernel_id: str
    suggestions: tuple[Any, ...]  # Suggestion
    measure_time_limit: float | None
    #: the share of a source's rows counted when the exact count runs out of time (None: the default)
    sample_fraction: float | None = None


def _optional_fraction(data: dict[str, Any], key: str) -> float | None:
    """A share in (0, 1], or None when absent.

    >>> _optional_fraction({"f": 0.05}, "f"), _optional_fraction({}, "f")
    (0.05, None)
    """
    value = data.get(key)
    if value is None:
        return None
    _expect(value, (int, float), key, "a number")
    if not math.isfinite(value) or not 0 < value <= 1:
        raise RequestError(f"'{key}' must be above 0 and at most 1, got {value}", kind="invalid_field")
    return float(value)


def parse_measure_request(body: bytes) -> MeasureRequest:
    """Parse and check a measure request: suggestions as optimize returned them, and the kernel.

    >>> parse_measure_request(b'{"kernel_id": "k", "suggestions": []}').suggestions
    ()
    >>> parse_measure_request(b'{"kernel_id": "k", "suggestions": [{"source": "t"}]}')
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: 'suggestions[0]': a suggestion lacks cells, kind, predicate, predicate_ir, proof, source_event
    """
    from magicpush_lab.suggestion import Suggestion

    data = _load_object(body)
    kernel_id = _optional_str(data, "kernel_id", "kernel_id")
    if not kernel_id:
        raise RequestError("'kernel_id' is missing: the kernel to count rows on", kind="missing_field")
    raw = data.get("suggestions")
    _expect(raw, list, "suggestions", "an array")
    suggestions = []
    for i, item in enumerate(raw):
        try:
            suggestions.append(Suggestion.from_json(item))
        except ValueError as err:
            raise RequestError(f"'suggestions[{i}]': {err}", kind="invalid_field") from None
    limit = _optional_seconds(data, "measure_time_limit", MAX_MEASURE_TIME_LIMIT)
    return MeasureRequest(kernel_id, tuple(suggestions), limit, _optional_fraction(data, "sample_fraction"))


#: Upper bound for the runs of each side when timing a suggestion (runtime.MAX_RUNS).
MAX_RUNTIME_RUNS = 20


@dataclass(frozen=True)
class RuntimeRequest:
    kernel_id: str
    suggestion: Any  # Suggestion
    runs: int | None
    time_limit: float | None


def parse_runtime_request(body: bytes) -> RuntimeRequest:
    """Parse and check a runtime request: one suggestion as optimize returned it, the kernel,
    and optionally the runs per side and the overall time limit.

    >>> parse_runtime_request(b'{"kernel_id": "k", "suggestion": {"source": "t"}}')
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: 'suggestion': a suggestion lacks cells, kind, predicate, predicate_ir, proof, source_event
    >>> parse_runtime_request(b'{"kernel_id": "k", "suggestion": {}, "runs": 0}')
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: 'runs' must be a whole number from 1 to 20, got 0
    """
    from magicpush_lab.suggestion import Suggestion

    data = _load_object(body)
    kernel_id = _optional_str(data, "kernel_id", "kernel_id")
    if not kernel_id:
        raise RequestError("'kernel_id' is missing: the kernel to time the pipeline on", kind="missing_field")
    if data.get("suggestion") is None:
        raise RequestError("'suggestion' is missing: a suggestion as optimize returned it", kind="missing_field")
    _expect(data["suggestion"], dict, "suggestion", "an object")
    runs = data.get("runs")
    if runs is not None:
        _expect(runs, int, "runs", "a whole number")
        if not 1 <= runs <= MAX_RUNTIME_RUNS:
            raise RequestError(f"'runs' must be a whole number from 1 to {MAX_RUNTIME_RUNS}, got {runs}",
                               kind="invalid_field")
    limit = _optional_seconds(data, "time_limit", MAX_MEASURE_TIME_LIMIT)
    try:
        suggestion = Suggestion.from_json(data["suggestion"])
    except ValueError as err:
        raise RequestError(f"'suggestion': {err}", kind="invalid_field") from None
    if not isinstance(suggestion.sink_event, int) or isinstance(suggestion.sink_event, bool):
        raise RequestError("'suggestion.sink_event' is missing: optimize again to get the pipeline's last "
                           "DataFrame", kind="missing_field")
    if not isinstance(suggestion.source_event, int) or isinstance(suggestion.source_event, bool):
        raise RequestError("'suggestion.source_event' must be an event id", kind="invalid_field")
    if suggestion.kind not in ("equivalent", "superset"):
        raise RequestError(f"'suggestion.kind' must be \"equivalent\" or \"superset\", got {suggestion.kind!r}",
                           kind="invalid_field")
    if suggestion.kind == "equivalent" and not isinstance(suggestion.late_filter_event, int):
        raise RequestError("'suggestion.late_filter_event' is missing: an equivalent suggestion removes it",
                           kind="missing_field")
    return RuntimeRequest(kernel_id, suggestion, runs, limit)
