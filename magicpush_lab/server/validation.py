"""Hand-written validation of the `/magicpush-lab/optimize` request body.

Every failure raises `RequestError` with a message naming the offending field,
so that the frontend can show it as it is.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

#: Largest accepted request body. Traces carry one analyzed plan per event, which
#: is verbose, but a notebook pipeline stays far below this.
MAX_BODY_BYTES = 20 * 1024 * 1024

#: Upper bound for the optimizer's time budget, in seconds.
MAX_TIME_BUDGET = 600.0


class RequestError(Exception):
    """An error the client can fix; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, *, status: int = 400, kind: str = "bad_request") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.kind = kind


@dataclass(frozen=True)
class NotebookCell:
    source: str
    cell_type: str
    id: str | None


@dataclass(frozen=True)
class OptimizeRequest:
    trace: dict[str, Any]
    notebook_path: str | None
    cells: tuple[NotebookCell, ...]
    kernel_id: str | None
    measure: bool
    time_budget: float | None
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
    except (ValueError, UnicodeDecodeError) as err:
        raise RequestError(f"request body is not valid JSON: {err}", kind="malformed_json") from err
    _expect(data, dict, "body", "a JSON object")

    if "trace" not in data or data["trace"] is None:
        raise RequestError("'trace' is missing: pull it from the kernel first", kind="missing_field")
    _expect(data["trace"], dict, "trace", "an object")

    notebook = data.get("notebook") or {}
    _expect(notebook, dict, "notebook", "an object")
    path = _optional_str(notebook, "path", "notebook.path")
    cells = _parse_cells(notebook)

    kernel_id = _optional_str(data, "kernel_id", "kernel_id")
    if kernel_id == "":
        kernel_id = None

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

    all_pipelines = data.get("all_pipelines", False)
    _expect(all_pipelines, bool, "all_pipelines", "a boolean")

    return OptimizeRequest(data["trace"], path, cells, kernel_id, measure, time_budget, all_pipelines)
