"""Checking the `/magicpush-lab/` request bodies against the JSON contract (contract.schema.json).

The schema is the one description of every request and answer; this module loads a body, checks
it against the route's definition with `jsonschema`, and turns the first problem into a
`RequestError` whose message names the field (`'suggestion.kind' must be one of ...`) and whose
kind and status are the ones docs/architecture.md promises. Limits on the work a request may ask
for are checked here too, before anything runs: body size, nesting depth, numbers that do not
fit a double, and the size of each predicate sent to a kernel.

>>> parse_replay_request(b'{"path": "nb/a.ipynb", "measure": false}').timeout
600.0
>>> parse_replay_request(b'{"path": 3}')
Traceback (most recent call last):
...
magicpush_lab.server.validation.RequestError: 'path' must be a string, got number
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Iterable, Iterator

#: Largest accepted request body. Traces carry one analyzed plan per event, which
#: is verbose, but a notebook pipeline stays far below this.
MAX_BODY_BYTES = 20 * 1024 * 1024

#: Deepest nesting accepted outside the trace (whose reader has its own limits): the schema
#: check and the kernel's predicate reader recurse once per level.
MAX_DEPTH = 100

#: Integers beyond this (a decimal(38) literal's range) are not numbers any field can hold.
MAX_INTEGER_DIGITS = 39

#: The most IR nodes of one predicate sent to a kernel: Spark analyses the Column it becomes.
MAX_PREDICATE_NODES = 2000

#: Upper bound (and default) for one cell's run time when replaying a notebook, in seconds.
MAX_REPLAY_TIMEOUT = 3600.0
DEFAULT_REPLAY_TIMEOUT = 600.0
#: The default time a whole replay may take: cells, optimization and counts.
DEFAULT_REPLAY_DEADLINE = 1800.0

#: The longest echo of a client's value in an error message.
MAX_ECHO = 80

SCHEMA_PATH = Path(__file__).with_name("contract.schema.json")


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


# -- the schema ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def contract() -> dict[str, Any]:
    """The JSON contract, contract.schema.json."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def validator(definition: str) -> Any:
    """A jsonschema validator for one definition of the contract (`OptimizeRequest`...)."""
    import jsonschema

    schema = contract()
    if definition not in schema["definitions"]:
        raise KeyError(f"the contract has no definition {definition!r}")
    root = {**schema, "$ref": f"#/definitions/{definition}"}
    return jsonschema.Draft7Validator(root)


def allowed_functions() -> frozenset[str]:
    """The Spark functions a predicate may call (the schema's SparkFunction allow-list).

    >>> "upper" in allowed_functions(), "reflect" in allowed_functions()
    (True, False)
    """
    return frozenset(contract()["definitions"]["SparkFunction"]["enum"])


# -- reading a body --------------------------------------------------------------------------


class _NumberOutOfRange(ValueError):
    pass


def _int(text: str) -> int | float:
    """An integer of the body; one too long for any field becomes an infinity, which every
    bounded field refuses by name (Python would parse it, then overflow where it meets a float)."""
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        return float("-inf") if text.startswith("-") else float("inf")
    return int(text)


def _constant(text: str) -> float:
    if text == "NaN":  # compares false with every bound, so no range check would refuse it
        raise _NumberOutOfRange(text)
    return float(text)  # Infinity, -Infinity: refused by the fields' bounds


def echo(value: Any, most: int = MAX_ECHO) -> str:
    """A client's value as an error message shows it: JSON, cut short.

    >>> echo("x" * 200)[-12:], echo([1, 2])
    ('xxxxxxxxx...', '[1, 2]')
    """
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= most else text[: most - 3] + "..."


def load_json(body: bytes) -> Any:
    """The request body as JSON, or RequestError (too large, empty, not JSON, numbers out of range)."""
    if len(body) > MAX_BODY_BYTES:
        raise RequestError(f"request body is {len(body)} bytes; the limit is {MAX_BODY_BYTES} bytes",
                           status=413, kind="body_too_large")
    if not body.strip():
        raise RequestError("request body is empty; expected a JSON object", kind="malformed_json")
    try:
        return json.loads(body, parse_int=_int, parse_constant=_constant)
    except _NumberOutOfRange:
        raise RequestError("the request body holds NaN, which is not a number any field takes",
                           kind="invalid_field") from None
    except RecursionError:
        # json.loads recurses per nesting level: a deeply nested body is refused, not a crash
        raise RequestError("request body is nested too deeply", kind="malformed_json") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise RequestError(f"request body is not valid JSON: {str(err)[:200]}", kind="malformed_json") from None


def _depth(value: Any, skip: Iterable[str] = ()) -> int:
    """The nesting depth of a JSON value, counted without recursion; top-level keys in `skip`
    are not descended into.

    >>> _depth({"a": [1, {"b": 2}]}), _depth({"trace": [[[[]]]], "x": 1}, skip=["trace"])
    (3, 1)
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    skipped = set(skip)
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for k, v in node.items() if not (level == 1 and k in skipped))
        elif isinstance(node, list):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in node)
    return deepest


def load_request(body: bytes, definition: str) -> dict[str, Any]:
    """A request body checked against its definition in the contract."""
    data = load_json(body)
    # the trace's own reader bounds its depth; everything else is checked by recursive code
    if _depth(data, skip=("trace",)) > MAX_DEPTH:
        raise RequestError(f"request body is nested too deeply (more than {MAX_DEPTH} levels)",
                           kind="malformed_json")
    check(data, definition)
    return data


def check(data: Any, definition: str, prefix: str = "") -> None:
    """RequestError for the first problem of `data` against `definition`, or nothing."""
    try:
        errors = list(validator(definition).iter_errors(data))
    except RecursionError:
        raise RequestError("request body is nested too deeply", kind="malformed_json") from None
    if errors:
        raise _request_error(_first(errors), errors, definition, prefix)


# -- schema errors as RequestErrors --------------------------------------------------------

_WEAK = {"anyOf", "oneOf"}


def _first(errors: list[Any]) -> Any:
    """The error to report: a definite one before an anyOf that merely failed, then the shallowest
    in the instance (most is wrong there), then the earliest among siblings."""
    return min(errors, key=lambda e: (e.validator in _WEAK, len(e.path), [str(p) for p in e.path]))


def field_name(path: Iterable[Any], prefix: str = "") -> str:
    """A JSON path as the messages name it.

    >>> field_name(["notebook", "cells", 0, "source"]), field_name([])
    ('notebook.cells[0].source', 'body')
    """
    out = prefix
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "body"


def _chain(definition: str, schema_path: Iterable[Any]) -> list[dict[str, Any]]:
    """The schema objects that hold an error's keyword: the one its schema path ends in and
    the ones that led there by $ref alone (a property's `{"title", "$ref"}` wrapper, say).
    Their x-errors and titles are the error's."""
    node: Any = contract()["definitions"][definition]
    chain = [node]
    for key in list(schema_path)[:-1]:
        while isinstance(node, dict) and "$ref" in node and key not in node:
            node = _resolve(node["$ref"])
            chain.append(node)
        node = node[key]
        if isinstance(node, dict):
            chain = [node]
    while isinstance(node, dict) and "$ref" in node:
        node = _resolve(node["$ref"])
        chain.append(node)
    return chain


def _kind_of_part(definition: str, schema_path: Iterable[Any]) -> str | None:
    """The `x-kind` of the innermost schema on the error's path that has one: every problem
    inside the trace is `invalid_trace`, say."""
    node: Any = contract()["definitions"][definition]
    kind = node.get("x-kind") if isinstance(node, dict) else None
    for key in list(schema_path)[:-1]:
        while isinstance(node, dict) and "$ref" in node and key not in node:
            node = _resolve(node["$ref"])
            kind = node.get("x-kind", kind)
        node = node[key]
        if isinstance(node, dict):
            kind = node.get("x-kind", kind)
    while isinstance(node, dict) and "$ref" in node:
        node = _resolve(node["$ref"])
        kind = node.get("x-kind", kind)
    return kind


def _resolve(ref: str) -> dict[str, Any]:
    node: Any = contract()
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def _title_of(schema: dict[str, Any]) -> str | None:
    seen = 0
    while seen < 5:
        if "title" in schema:
            return str(schema["title"])
        if "$ref" not in schema:
            return None
        schema = _resolve(schema["$ref"])
        seen += 1
    return None


_TYPE_WORDS = {"string": "a string", "integer": "a whole number", "number": "a number", "boolean": "a boolean",
               "object": "an object", "array": "an array", "null": "null"}


def json_type(value: Any) -> str:
    """The JSON type of a value, as the messages name it.

    >>> json_type(True), json_type(1.5), json_type(None), json_type({})
    ('boolean', 'number', 'null', 'object')
    """
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


def _expected(types: Any) -> str:
    names = [types] if isinstance(types, str) else list(types)
    words = [_TYPE_WORDS.get(t, t) for t in names if t != "null"]
    text = " or ".join(words) if words else "null"
    return text + (" or null" if "null" in names and words else "")


def _range(schema: dict[str, Any]) -> str:
    integer = schema.get("type") in ("integer", ["integer", "null"])
    low = schema.get("exclusiveMinimum", schema.get("minimum"))
    high = schema.get("exclusiveMaximum", schema.get("maximum"))
    # a bound that only keeps numbers JSON-safe is not worth saying
    low = None if low is not None and low < -1e15 else low
    high = None if high is not None and high > 1e15 else high
    lo_x = " (exclusive)" if "exclusiveMinimum" in schema else ""
    hi_x = " (exclusive)" if "exclusiveMaximum" in schema else ""
    noun = "a whole number " if integer else ""
    if low is not None and high is not None:
        if integer and not lo_x and not hi_x:
            return f"{noun}from {low:g} to {high:g}"
        return f"{noun}between {low:g}{lo_x} and {high:g}{hi_x}"
    if low is not None:
        return f"{noun}{'above' if lo_x else 'at least'} {low:g}"
    return f"{noun}{'below' if hi_x else 'at most'} {high:g}"


def _request_error(error: Any, errors: list[Any], definition: str, prefix: str) -> RequestError:
    chain = _chain(definition, error.absolute_schema_path)
    validator_name = error.validator
    field = field_name(error.absolute_path, prefix)
    custom = next((s["x-errors"][validator_name] for s in reversed(chain)
                   if isinstance(s.get("x-errors"), dict) and validator_name in s["x-errors"]), None)
    missing: list[str] = []
    if validator_name == "required":
        missing = sorted({m for e in errors if e.validator == "required" and list(e.absolute_path) ==
                          list(error.absolute_path) for m in _missing_names(e)})
    if custom is not None:
        message = custom["message"].format(field=field, value=echo(error.instance), missing=", ".join(missing))
        return RequestError(message, status=int(custom.get("status", 400)), kind=custom.get("kind", "invalid_field"))
    if validator_name in _WEAK and error.context:
        # anyOf failed: report what is wrong inside the alternative of the value's type, or,
        # when the value has none of their types, every type it could have had
        inner = [e for e in error.context if e.validator != "type" or e.relative_path]
        if inner:
            return _request_error(_first(inner), inner, definition, prefix)
        types = [t for e in error.context for t in ([e.validator_value] if isinstance(e.validator_value, str)
                                                    else e.validator_value)]
        if error.instance is None:
            return RequestError(f"'{field}' is missing", kind="missing_field")
        return RequestError(f"'{field}' must be {_expected(list(dict.fromkeys(types)))}, got {json_type(error.instance)}",
                            kind="invalid_field")
    if validator_name == "required":
        name = next(n for n in error.validator_value if n in missing)  # the schema's order: the main one first
        owner = chain[-1]
        hint = _title_of(owner.get("properties", {}).get(name, {})) if isinstance(owner, dict) else None
        full = field_name([*error.absolute_path, name], prefix)
        return RequestError(f"'{full}' is missing" + (f": {hint}" if hint else ""), kind="missing_field")
    if validator_name == "type" and error.instance is None:
        # null where a value is needed: the field is as good as absent
        hint = next((s["title"] for s in chain if "title" in s), None)
        return RequestError(f"'{field}' is missing" + (f": {hint}" if hint else ""), kind="missing_field")
    return RequestError(_message(error, field), kind=_kind_of_part(definition, error.absolute_schema_path)
                        or "invalid_field")


def _missing_names(error: Any) -> list[str]:
    return [name for name in error.validator_value if isinstance(error.instance, dict) and name not in error.instance]


def _message(error: Any, field: str) -> str:
    v, value, schema = error.validator, error.instance, error.schema
    if v == "type":
        return f"'{field}' must be {_expected(error.validator_value)}, got {json_type(value)}"
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"'{field}' must be {_range(schema)}, got {echo(value, 30)}"
    if v in ("enum", "const"):
        options = schema.get("enum", [schema.get("const")])
        shown = ", ".join(json.dumps(o) for o in options[:8]) + (", ..." if len(options) > 8 else "")
        return f"'{field}' must be one of {shown}, got {echo(value)}"
    if v == "minLength":
        return f"'{field}' must not be empty" if error.validator_value == 1 else \
            f"'{field}' must be at least {error.validator_value} characters long"
    if v == "maxLength":
        return f"'{field}' is longer than {error.validator_value:,} characters"
    if v == "maxItems":
        return f"'{field}' has more than {error.validator_value:,} items"
    if v == "minItems":
        return f"'{field}' needs at least {error.validator_value} item(s)"
    if v == "additionalProperties":
        extra = sorted(set(value) - set(schema.get("properties", {}))) if isinstance(value, dict) else []
        return f"'{field}' has fields it may not have: {echo(extra)}"
    if v == "pattern":
        return f"'{field}' is not in the expected form, got {echo(value)}"
    return f"'{field}' is not valid ({v})"


# -- predicates sent to a kernel -------------------------------------------------------------


def predicate_nodes(ir: Any) -> int:
    """IR nodes (objects with a `kind`) in a predicate's JSON, counted without recursion.

    >>> predicate_nodes({"kind": "Not", "arg": {"kind": "Col", "name": "v"}})
    2
    """
    count = 0
    stack = [ir]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            count += "kind" in node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


def check_predicate(ir: Any, field: str) -> None:
    """RequestError unless `ir` is a predicate the server may send to a kernel: an expression of
    the contract's Predicate definition (so its functions are on the allow-list), and not too
    big for Spark to analyse.

    >>> check_predicate({"kind": "Func", "name": "java_method", "args": []}, "predicate_ir")
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: 'predicate_ir.name' is "java_method", which the engine never writes into a predicate: only pure Spark functions are sent to a kernel
    """
    nodes = predicate_nodes(ir)
    if nodes > MAX_PREDICATE_NODES:
        raise RequestError(f"'{field}' has {nodes:,} nodes; a predicate sent to a kernel has at most "
                           f"{MAX_PREDICATE_NODES:,}", kind="invalid_field")
    if _depth(ir) > MAX_DEPTH:
        raise RequestError(f"'{field}' is nested too deeply (more than {MAX_DEPTH} levels)", kind="invalid_field")
    check(ir, "Predicate", prefix=field)


def predicates_of(suggestion: dict[str, Any], field: str) -> Iterator[tuple[Any, str]]:
    """Every predicate a suggestion's JSON would send to a kernel: its own and its alternatives'."""
    yield suggestion.get("predicate_ir"), f"{field}.predicate_ir"
    for i, alternative in enumerate(suggestion.get("alternatives") or ()):
        if isinstance(alternative, dict):
            yield from predicates_of(alternative, f"{field}.alternatives[{i}]")


def _suggestions(raw: list[dict[str, Any]], field: str) -> tuple[Any, ...]:
    from magicpush_lab.suggestion import Suggestion

    out = []
    for i, item in enumerate(raw):
        name = f"{field}[{i}]" if field else "suggestion"
        for ir, where in predicates_of(item, name):
            check_predicate(ir, where)
        try:
            out.append(Suggestion.from_json(item))
        except ValueError as err:
            raise RequestError(f"'{name}': {err}", kind="invalid_field") from None
    return tuple(out)


# -- the requests ------------------------------------------------------------------------------


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


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


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
    data = load_request(body, "OptimizeRequest")
    notebook = data.get("notebook") or {}
    cells = tuple(NotebookCell(c["source"], c.get("cell_type") or "code", c.get("id"))
                  for c in notebook.get("cells") or ())
    return OptimizeRequest(data.get("trace"), notebook.get("path"), cells, data.get("kernel_id") or None,
                           data.get("measure", True), _float_or_none(data.get("time_budget")),
                           _float_or_none(data.get("measure_time_limit")), data.get("all_pipelines", False))


@dataclass(frozen=True)
class ReplayRequest:
    path: str
    timeout: float
    measure: bool
    time_budget: float | None
    #: seconds the whole replay may take
    deadline: float = DEFAULT_REPLAY_DEADLINE


def parse_replay_request(body: bytes) -> ReplayRequest:
    """Parse and check a replay request body (the path is checked by `resolve_notebook_path`).

    >>> parse_replay_request(b'{"path": "a.py", "timeout": 0.5}')
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: 'timeout' must be between 1 and 3600, got 0.5
    """
    data = load_request(body, "ReplayRequest")
    timeout = _float_or_none(data.get("timeout"))
    deadline = _float_or_none(data.get("deadline"))
    return ReplayRequest(data["path"], DEFAULT_REPLAY_TIMEOUT if timeout is None else timeout,
                         data.get("measure", True), _float_or_none(data.get("time_budget")),
                         DEFAULT_REPLAY_DEADLINE if deadline is None else deadline)


@dataclass(frozen=True)
class MeasureRequest:
    kernel_id: str
    suggestions: tuple[Any, ...]  # Suggestion
    measure_time_limit: float | None
    #: the share of a source's rows counted when the exact count runs out of time (None: the default)
    sample_fraction: float | None = None


def parse_measure_request(body: bytes) -> MeasureRequest:
    """Parse and check a measure request: suggestions as optimize returned them, and the kernel.

    >>> parse_measure_request(b'{"kernel_id": "k", "suggestions": []}').suggestions
    ()
    >>> parse_measure_request(b'{"kernel_id": "k", "suggestions": [{"source": "t"}]}')
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: 'suggestions[0]': a suggestion lacks cells, kind, predicate, predicate_ir, proof, source_event
    """
    data = load_request(body, "MeasureRequest")
    suggestions = _suggestions(data["suggestions"], "suggestions")
    return MeasureRequest(data["kernel_id"], suggestions, _float_or_none(data.get("measure_time_limit")),
                          _float_or_none(data.get("sample_fraction")))


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
    magicpush_lab.server.validation.RequestError: 'suggestion': a suggestion lacks cells, kind, predicate, predicate_ir, proof, sink_event, source_event
    >>> parse_runtime_request(b'{"kernel_id": "k", "suggestion": {}, "runs": 0}')
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: 'runs' must be a whole number from 1 to 20, got 0
    """
    data = load_request(body, "RuntimeRequest")
    [suggestion] = _suggestions([data["suggestion"]], "")
    return RuntimeRequest(data["kernel_id"], suggestion, data.get("runs"), _float_or_none(data.get("time_limit")))


# -- the replayed notebook's path --------------------------------------------------------------


def resolve_notebook_path(root: str | os.PathLike[str], relative: str, allow_hidden: bool = False) -> Path:
    """The notebook `relative` names under `root`, resolved; RequestError unless it is a
    readable notebook file inside `root` (symlinks are followed before the check, so a
    link pointing out of the root is refused like `..`), and not hidden (a name starting with
    a dot, in the path or where a link leads) unless `allow_hidden`, as the contents API
    hides it. No message names a directory of the server.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     _ = (Path(root) / "a.ipynb").write_text("{}")
    ...     resolve_notebook_path(root, "a.ipynb").name
    'a.ipynb'
    >>> resolve_notebook_path("/srv/notebooks", "../etc/passwd")
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: '../etc/passwd' is outside the server's root directory
    >>> resolve_notebook_path("/srv/notebooks", "nb/.secrets/a.py")
    Traceback (most recent call last):
    ...
    magicpush_lab.server.validation.RequestError: no such notebook: 'nb/.secrets/a.py' (hidden files are not served)
    """
    from jupyter_core.paths import is_hidden

    from magicpush_lab.driver.notebook import SUPPORTED

    hidden = RequestError(f"no such notebook: {quoted(relative)} (hidden files are not served)", status=404,
                          kind="not_found")
    if not relative.strip() or "\x00" in relative:
        raise RequestError("'path' must name a notebook file", kind="invalid_field")
    pure = PurePosixPath(relative.replace("\\", "/"))
    if pure.is_absolute() or PureWindowsPath(relative).drive or ".." in pure.parts:
        raise RequestError(f"{quoted(relative)} is outside the server's root directory", status=403,
                           kind="path_outside_root")
    if not allow_hidden and any(part.startswith(".") for part in pure.parts):
        raise hidden
    try:
        base = Path(root).resolve()
        target = (base / pure).resolve()
        if target != base and base not in target.parents:
            raise RequestError(f"{quoted(relative)} is outside the server's root directory", status=403,
                               kind="path_outside_root")
        if not target.exists():
            raise RequestError(f"no such file: {quoted(relative)}", status=404, kind="not_found")
        if not allow_hidden and is_hidden(str(target), str(base)):
            raise hidden
        if not target.is_file() or target.suffix not in SUPPORTED:
            raise RequestError(f"{quoted(relative)} is not a notebook: expected an .ipynb file or a percent-format "
                               ".py", kind="not_a_notebook")
    except OSError:  # a name too long for the file system, a loop of links...
        raise RequestError(f"no such file: {quoted(relative)}", status=404, kind="not_found") from None
    return target


def quoted(text: str) -> str:
    """`text` as a message quotes it: repr, cut short.

    >>> quoted("a.ipynb"), len(quoted("x" * 10_000))
    ("'a.ipynb'", 80)
    """
    shown = repr(text)
    return shown if len(shown) <= MAX_ECHO else shown[: MAX_ECHO - 4] + "...'"
